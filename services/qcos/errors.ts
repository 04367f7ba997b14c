/**
 * Interface 1 errors: `{error: {code, message, details}, request_id}` with the spec's codes.
 * Beyond the spec's table: INVALID_REQUEST (400: malformed JSON, wrong types, values out of
 * range) and CONFLICT (409: results of a job that has not completed, cancel of a finished job).
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

export const QCOS_CODES = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_CIRCUIT: 400,
  INVALID_BACKEND: 400,
  INVALID_REQUEST: 400,
  CONFLICT: 409,
  QUOTA_EXCEEDED: 429,
  RATE_LIMITED: 429,
  BACKEND_ERROR: 502,
  INTERNAL_ERROR: 500,
} as const;

export type QcosCode = keyof typeof QCOS_CODES;

export function qcosError(code: QcosCode, message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}): ApiError {
  return new ApiError(QCOS_CODES[code], code, message, details, headers);
}

/** Codes the platform raises for requests it refuses before a route runs. */
const PLATFORM: Record<string, QcosCode> = {
  validation_error: 'INVALID_REQUEST',
  invalid_json: 'INVALID_REQUEST',
  body_too_large: 'INVALID_REQUEST',
  bad_request: 'INVALID_REQUEST',
  unsupported_media_type: 'INVALID_REQUEST',
  not_found: 'NOT_FOUND',
  internal_error: 'INTERNAL_ERROR',
};

export const formatQcosError: ErrorFormatter = (error, requestId) => {
  const code = PLATFORM[error.code] ?? (error.code in QCOS_CODES ? error.code : error.status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST');
  return { error: { code, message: error.message, details: error.extra ?? {} }, request_id: requestId };
};

export const QcosError = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ enum: Object.keys(QCOS_CODES) }),
      message: Type.String(),
      details: Type.Record(Type.String(), Type.Unknown()),
    }),
    request_id: Type.String(),
  },
  { $id: 'QcosError', description: 'Error body of interface 1.' },
);
