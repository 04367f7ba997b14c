/**
 * The error catalogue of the positioning service (interface 7): every failure is
 * `{success: false, error: {code, message}}` with a stable code, mapped to its status here.
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

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

export function navError(code: NavErrorCode, message: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(NAV_ERRORS[code], code, message, {}, headers);
}

const PLATFORM_CODES: Record<string, NavErrorCode> = {
  validation_error: 'INVALID_REQUEST',
  invalid_json: 'INVALID_REQUEST',
  body_too_large: 'INVALID_REQUEST',
  bad_request: 'INVALID_REQUEST',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  not_found: 'NOT_FOUND',
  internal_error: 'INTERNAL_ERROR',
  rate_limited: 'RATE_LIMIT_EXCEEDED',
};

export const formatNavError: ErrorFormatter = (error) => {
  const code = error.code in NAV_ERRORS ? error.code : (PLATFORM_CODES[error.code] ?? (error.status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST'));
  return { success: false, error: { code, message: error.message } };
};

export const NavError = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ description: `one of ${Object.keys(NAV_ERRORS).join(', ')}` }),
      message: Type.String({ description: 'What went wrong, in words.' }),
    }),
  },
  { $id: 'NavError', description: 'Error envelope of the positioning service.' },
);
