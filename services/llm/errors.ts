/**
 * Variant Q errors: `{error: {code, message, retry_after}, request_id}` with the spec's codes
 * (UNAUTHORIZED 401, FORBIDDEN 403, NOT_FOUND 404, RATE_LIMITED 429, INVALID_REQUEST 400,
 * MODEL_NOT_FOUND 400, TENANT_NOT_FOUND 404, TRAINING_FAILED 500, INTERNAL_ERROR 500).
 * `retry_after` is in seconds, set on 429 and null otherwise.
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

export type QCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'INVALID_REQUEST'
  | 'MODEL_NOT_FOUND'
  | 'TENANT_NOT_FOUND'
  | 'TRAINING_FAILED'
  | 'INTERNAL_ERROR';

const STATUS: Record<QCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  INVALID_REQUEST: 400,
  MODEL_NOT_FOUND: 400,
  TENANT_NOT_FOUND: 404,
  TRAINING_FAILED: 500,
  INTERNAL_ERROR: 500,
};

/** Throws nothing: builds the error a route throws. */
export function qError(code: QCode, message: string, retryAfter?: number): ApiError {
  const headers: Record<string, string> = retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {};
  return new ApiError(STATUS[code], code, message, retryAfter !== undefined ? { retry_after: retryAfter } : {}, headers);
}

/** Platform codes (validation, malformed JSON, oversized bodies, unknown routes) in Q's words. */
function qCode(code: string, status: number): QCode {
  if (code in STATUS) return code as QCode;
  if (status === 404) return 'NOT_FOUND';
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 429) return 'RATE_LIMITED';
  if (status >= 500) return 'INTERNAL_ERROR';
  return 'INVALID_REQUEST';
}

export const formatQError: ErrorFormatter = (error, requestId) => {
  const retry = error.extra.retry_after;
  return {
    error: { code: qCode(error.code, error.status), message: error.message, retry_after: typeof retry === 'number' ? retry : null },
    request_id: requestId,
  };
};

export const QError = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'UNAUTHORIZED, FORBIDDEN, NOT_FOUND, RATE_LIMITED, INVALID_REQUEST, MODEL_NOT_FOUND, TENANT_NOT_FOUND, TRAINING_FAILED or INTERNAL_ERROR' }),
      message: Type.String(),
      retry_after: Type.Union([Type.Number(), Type.Null()], { description: 'Seconds to wait before retrying (429), else null.' }),
    }),
    request_id: Type.String(),
  },
  { $id: 'QError', description: 'Error body of the language API (variant Q).' },
);

export const errorRef = Type.Ref('QError');
/** The error responses every authenticated route may give, for the docs. */
export const commonErrors = { 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 429: errorRef, 500: errorRef };
