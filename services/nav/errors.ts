/**
 * The error catalogue of the positioning service (interface 7): every failure is
 * `{success: false, error: {code, message}}` with a stable code, mapped to its status here.
 */
import { envelopeCatalogue } from '../../platform/http/envelope.ts';

export const NAV_ERRORS = {
  UNAUTHORIZED: 401,
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  // The receiver cannot meet the request now (no fix yet, source lost): retry later.
  NO_FIX: 503,
  NO_TIME: 503,
  // The request is understood but the current solution does not satisfy it.
  INSUFFICIENT_CONSTELLATIONS: 422,
  UNSUPPORTED_ALGORITHM: 400,
  SYNC_FAILED: 503,
} as const;

export type NavErrorCode = keyof typeof NAV_ERRORS;

export const {
  error: navError,
  format: formatNavError,
  schema: NavError,
  responses,
} = envelopeCatalogue({ codes: NAV_ERRORS, schemaId: 'NavError', description: 'Error envelope of the positioning service.' });
