/**
 * Variant Q errors: `{error: {code, message, retry_after}, request_id}` with the spec's codes
 * (UNAUTHORIZED 401, FORBIDDEN 403, NOT_FOUND 404, RATE_LIMITED 429, INVALID_REQUEST 400,
 * MODEL_NOT_FOUND 400, TENANT_NOT_FOUND 404, TRAINING_FAILED 500, INTERNAL_ERROR 500).
 * `retry_after` is in seconds, set on 429 and null otherwise.
 */
import { Type } from 'typebox';
import type { ApiError } from '../../platform/http/errors.ts';
import { errorShape } from '../../platform/http/error-shape.ts';

export const Q_CODES = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  INVALID_REQUEST: 400,
  MODEL_NOT_FOUND: 400,
  TENANT_NOT_FOUND: 404,
  TRAINING_FAILED: 500,
  INTERNAL_ERROR: 500,
} as const;

export type QCode = keyof typeof Q_CODES;

const shape = errorShape({
  codes: Q_CODES,
  // Q's codes follow the status: any refusal of these statuses (the platform's rate limit, its
  // unknown routes...) answers with the code named for it.
  platform: {
    invalid: 'INVALID_REQUEST',
    notFound: 'NOT_FOUND',
    internal: 'INTERNAL_ERROR',
    byStatus: { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 429: 'RATE_LIMITED' },
  },
  body: (code, error, requestId) => {
    const retry = error.extra.retry_after;
    return { error: { code, message: error.message, retry_after: typeof retry === 'number' ? retry : null }, request_id: requestId };
  },
});

/** Throws nothing: builds the error a route throws. */
export function qError(code: QCode, message: string, retryAfter?: number): ApiError {
  if (retryAfter === undefined) return shape.error(code, message);
  return shape.error(code, message, { retry_after: retryAfter }, { 'retry-after': String(retryAfter) });
}

export const formatQError = shape.format;

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
