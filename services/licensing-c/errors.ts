/** Variant C errors: every body is `{detail: <string>}`, declared once for the docs. */
import { detailShape } from '../../platform/http/error-shape.ts';

export const { format: formatDetailError, schema: CDetailError } = detailShape('CDetailError', 'Error body of licensing variant C.');
