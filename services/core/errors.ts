/**
 * The error catalogue of interface 3: every failure is `{success: false, error: {code,
 * message}}` with a stable code, mapped to its HTTP status here and nowhere else.
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

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

export function coreError(code: CoreErrorCode, message: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(CORE_ERRORS[code], code, message, {}, headers);
}

/** The platform's own codes (validation, malformed JSON, unknown routes...) in this catalogue's words. */
const PLATFORM_CODES: Record<string, CoreErrorCode> = {
  validation_error: 'INVALID_REQUEST',
  invalid_json: 'INVALID_REQUEST',
  body_too_large: 'INVALID_REQUEST',
  bad_request: 'INVALID_REQUEST',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  not_found: 'NOT_FOUND',
  internal_error: 'INTERNAL_ERROR',
  rate_limited: 'RATE_LIMIT_EXCEEDED',
};

export const formatCoreError: ErrorFormatter = (error) => {
  const code = error.code in CORE_ERRORS ? error.code : (PLATFORM_CODES[error.code] ?? (error.status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST'));
  return { success: false, error: { code, message: error.message } };
};

export const CoreError = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ description: `one of ${Object.keys(CORE_ERRORS).join(', ')}` }),
      message: Type.String({ description: 'What went wrong, in words.' }),
    }),
  },
  { $id: 'CoreError', description: 'Error envelope of the core API.' },
);
