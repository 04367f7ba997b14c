/** Variant C errors: every body is `{detail: <string>}`, declared once for the docs. */
import { Type } from 'typebox';
import type { ErrorFormatter } from '../../platform/http/errors.ts';

export const formatDetailError: ErrorFormatter = (error) => ({ detail: error.message });

export const CDetailError = Type.Object(
  { detail: Type.String({ description: 'What went wrong, in words.' }) },
  { $id: 'CDetailError', description: 'Error body of licensing variant C.' },
);
