/**
 * Runtime errors. The spec names no body for interface 6; it is the project's common
 * `{error: {code, message, details}, request_id}` (as interface 1 and variant Q), with the
 * codes below mapped to statuses in this one place.
 */
import { errorShape, nestedErrorBody, nestedErrorSchema } from '../../platform/http/error-shape.ts';

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

const shape = errorShape({
  codes: RUNTIME_CODES,
  platform: { invalid: 'INVALID_REQUEST', notFound: 'NOT_FOUND', internal: 'INTERNAL_ERROR' },
  body: nestedErrorBody,
});

/** An error of the runtime: `runtimeError(code, message, details?)`. */
export const runtimeError = shape.error;

export const formatRuntimeError = shape.format;

export const RuntimeError = nestedErrorSchema(RUNTIME_CODES, 'RuntimeError', 'Error body of the runtime (interface 6).');
