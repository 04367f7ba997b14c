/** Licensing errors (variants A and B): every error body is `{detail: <string>}`. */
import { detailShape } from '../../platform/http/error-shape.ts';

export const { format: formatLicensingError, schema: DetailError } = detailShape('DetailError', 'Error body of the licensing service.');
