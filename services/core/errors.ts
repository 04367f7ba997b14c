/**
 * The error catalogue of interface 3: every failure is `{success: false, error: {code,
 * message}}` with a stable code, mapped to its HTTP status here and nowhere else.
 */
import { envelopeCatalogue } from '../../platform/http/envelope.ts';

/** Codes of the spec (first group) and the ones this service adds where the spec is silent. */
export const CORE_ERRORS = {
  INVALID_CIRCUIT: 400,
  BACKEND_UNAVAILABLE: 503,
  RATE_LIMIT_EXCEEDED: 429,
  UNAUTHORIZED: 401,
  QUOTA_EXCEEDED: 403,
  JOB_NOT_FOUND: 404,
  INTERNAL_ERROR: 500,
  // Decided here (the spec names none for these cases).
  INVALID_BACKEND: 400,
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  INVALID_JOB_STATE: 409,
  UNSUPPORTED_MEDIA_TYPE: 415,
} as const;

export type CoreErrorCode = keyof typeof CORE_ERRORS;

export const {
  error: coreError,
  format: formatCoreError,
  schema: CoreError,
  responses,
} = envelopeCatalogue({ codes: CORE_ERRORS, schemaId: 'CoreError', description: 'Error envelope of the core API.' });
