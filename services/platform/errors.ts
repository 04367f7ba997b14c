/**
 * Interface 5 errors: a refusal answers an HTTP status and a machine reason in `detail`
 * (spec), so `detail` is the stable reason (`insufficient_credits`, `rate_limit_exceeded`,
 * ...); `code` repeats it for clients that read codes, `message` says it for people.
 * Nothing is charged on any of them. The catalogue below is the whole list.
 */
import { Type } from 'typebox';
import { errorShape } from '../../platform/http/error-shape.ts';

export const PLATFORM_REASONS = {
  unauthorized: 401,
  invalid_request: 400,
  invalid_circuit: 400,
  invalid_backend: 400,
  invalid_command: 400,
  invalid_artifact_uri: 400,
  artifact_unavailable: 400,
  invalid_idempotency_key: 400,
  insufficient_credits: 402,
  plan_forbids_workload: 403,
  plan_forbids_backend: 403,
  shots_exceeded: 403,
  resources_exceeded: 422,
  idempotency_key_reused: 409,
  evidence_not_ready: 409,
  rate_limit_exceeded: 429,
  route_not_found: 404,
  sandbox_unavailable: 503,
  internal_error: 500,
} as const;

export type PlatformReason = keyof typeof PLATFORM_REASONS;

const shape = errorShape({
  codes: PLATFORM_REASONS,
  platform: { invalid: 'invalid_request', notFound: 'route_not_found', internal: 'internal_error' },
  body: (reason, error, requestId) => ({ detail: reason, code: reason, message: error.message, ...error.extra, request_id: requestId }),
});

/** A refusal of interface 5: `platformError(reason, message, extra?, headers?)`. */
export const platformError = shape.error;

export const formatPlatformError = shape.format;

export const PlatformErrorBody = Type.Object(
  {
    detail: Type.String({ enum: Object.keys(PLATFORM_REASONS), description: 'The machine reason of the refusal' }),
    code: Type.String(),
    message: Type.String(),
    request_id: Type.String(),
  },
  { $id: 'PlatformError', additionalProperties: true, description: 'Error body of interface 5; nothing is charged on a refusal.' },
);
