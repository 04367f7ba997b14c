/**
 * Runtime errors. The spec names no body for interface 6; it is the project's common
 * `{error: {code, message, details}, request_id}` (as interface 1 and variant Q), with the
 * codes below mapped to statuses in this one place.
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

export const RUNTIME_CODES = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  INVALID_APPROVAL_TOKEN: 403,
  NOT_FOUND: 404,
  INVALID_REQUEST: 400,
  INVALID_CIRCUIT: 400,
  INVALID_BACKEND: 400,
  CIRCUIT_TOO_LARGE: 400,
  SHOTS_EXCEEDED: 400,
  INSUFFICIENT_CREDITS: 402,
  CONFLICT: 409,
  INTERNAL_ERROR: 500,
} as const;

export type RuntimeCode = keyof typeof RUNTIME_CODES;

export function runtimeError(code: RuntimeCode, message: string, details: Record<string, unknown> = {}): ApiError {
  return new ApiError(RUNTIME_CODES[code], code, message, details);
}

/** Codes the platform raises before a route runs (malformed JSON, schema failures, unknown paths). */
const PLATFORM: Record<string, RuntimeCode> = {
  validation_error: 'INVALID_REQUEST',
  invalid_json: 'INVALID_REQUEST',
  body_too_large: 'INVALID_REQUEST',
  bad_request: 'INVALID_REQUEST',
  unsupported_media_type: 'INVALID_REQUEST',
  not_found: 'NOT_FOUND',
  internal_error: 'INTERNAL_ERROR',
};

export const formatRuntimeError: ErrorFormatter = (error, requestId) => {
  const code = PLATFORM[error.code] ?? (error.code in RUNTIME_CODES ? error.code : error.status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST');
  return { error: { code, message: error.message, details: error.extra ?? {} }, request_id: requestId };
};

export const RuntimeError = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ enum: Object.keys(RUNTIME_CODES) }),
      message: Type.String(),
      details: Type.Record(Type.String(), Type.Unknown()),
    }),
    request_id: Type.String(),
  },
  { $id: 'RuntimeError', description: 'Error body of the runtime (interface 6).' },
);
