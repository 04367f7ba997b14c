/**
 * Interface 1 errors: `{error: {code, message, details}, request_id}` with the spec's codes.
 * Beyond the spec's table: INVALID_REQUEST (400: malformed JSON, wrong types, values out of
 * range) and CONFLICT (409: results of a job that has not completed, cancel of a finished job).
 */
import { errorShape, nestedErrorBody, nestedErrorSchema } from '../../platform/http/error-shape.ts';

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

const shape = errorShape({
  codes: QCOS_CODES,
  platform: { invalid: 'INVALID_REQUEST', notFound: 'NOT_FOUND', internal: 'INTERNAL_ERROR' },
  body: nestedErrorBody,
});

/** An error of interface 1: `qcosError(code, message, details?, headers?)`. */
export const qcosError = shape.error;

export const formatQcosError = shape.format;

export const QcosError = nestedErrorSchema(QCOS_CODES, 'QcosError', 'Error body of interface 1.');
