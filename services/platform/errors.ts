/**
 * Interface 5 errors: a refusal answers an HTTP status and a machine reason in `detail`
 * (spec), so `detail` is the stable reason (`insufficient_credits`, `rate_limit_exceeded`,
 * ...); `code` repeats it for clients that read codes, `message` says it for people.
 * Nothing is charged on any of them. The catalogue below is the whole list.
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

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

export function platformError(reason: PlatformReason, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): ApiError {
  return new ApiError(PLATFORM_REASONS[reason], reason, message, extra, headers);
}

/** Codes the HTTP layer raises before a route runs, in this service's reasons. */
const FROM_PLATFORM: Record<string, PlatformReason> = {
  validation_error: 'invalid_request',
  invalid_json: 'invalid_request',
  body_too_large: 'invalid_request',
  bad_request: 'invalid_request',
  unsupported_media_type: 'invalid_request',
  not_found: 'route_not_found',
  internal_error: 'internal_error',
};

export const formatPlatformError: ErrorFormatter = (error, requestId) => {
  const reason = FROM_PLATFORM[error.code] ?? (error.code in PLATFORM_REASONS ? error.code : error.status >= 500 ? 'internal_error' : 'invalid_request');
  return { detail: reason, code: reason, message: error.message, ...error.extra, request_id: requestId };
};

export const PlatformErrorBody = Type.Object(
  {
    detail: Type.String({ enum: Object.keys(PLATFORM_REASONS), description: 'The machine reason of the refusal' }),
    code: Type.String(),
    message: Type.String(),
    request_id: Type.String(),
  },
  { $id: 'PlatformError', additionalProperties: true, description: 'Error body of interface 5; nothing is charged on a refusal.' },
);
