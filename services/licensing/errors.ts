/** Licensing errors (variants A, B and C): every error body is `{detail: <string>}`. */
import { Type } from 'typebox';
import type { ErrorFormatter } from '../../platform/http/errors.ts';

export const formatLicensingError: ErrorFormatter = (error) => ({ detail: error.message });

export const DetailError = Type.Object(
  { detail: Type.String({ description: 'What went wrong, in words.' }) },
  { $id: 'DetailError', description: 'Error body of the licensing service.' },
);
