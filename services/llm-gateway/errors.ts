/**
 * Variant P's one error catalogue: every failure is `{error: {message, type}}` (spec, Errors).
 * Codes of the platform's own failures (validation, malformed JSON, oversized bodies, unknown
 * routes) map to the spec's types here, so no route builds an error body by hand.
 */
import { Type } from 'typebox';
import { ApiError } from '../../platform/http/errors.ts';
import { errorShape } from '../../platform/http/error-shape.ts';

/** The spec's error types and the status each usually answers with (the table gives some others, e.g. 503 server_error). */
export const GATEWAY_TYPES = {
  invalid_request_error: 400,
  authentication_error: 401,
  insufficient_quota: 402,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_error: 429,
  server_error: 500,
} as const;

export type ErrorType = keyof typeof GATEWAY_TYPES;

export const { format: formatGatewayError } = errorShape({
  codes: GATEWAY_TYPES,
  platform: { invalid: 'invalid_request_error', notFound: 'not_found_error', internal: 'server_error' },
  body: (type, error) => ({ error: { message: error.message, type } }),
});

/** Status of a call whose client went away before its answer (nginx's 499, no standard one exists). */
export const CLIENT_CLOSED_REQUEST = 499;

/** An error of the spec's table. `modelLayer` errors reached the model layer and carry X-Service-Request-Id. */
export function gatewayError(status: number, type: ErrorType, message: string, modelLayerRequestId?: string): ApiError {
  return new ApiError(status, type, message, {}, modelLayerRequestId ? { 'x-service-request-id': modelLayerRequestId } : {});
}

export const errors = {
  modelAndMessages: () => gatewayError(400, 'invalid_request_error', 'model and messages are required'),
  invalid: (message: string) => gatewayError(400, 'invalid_request_error', message),
  missingKey: () => gatewayError(401, 'authentication_error', 'Missing or invalid API key'),
  invalidKey: () => gatewayError(401, 'authentication_error', 'Invalid or expired API key'),
  insufficientCredits: () => gatewayError(402, 'insufficient_quota', 'Insufficient credits'),
  spendLimit: () => gatewayError(402, 'insufficient_quota', 'Spend limit reached for this API key'),
  scope: (scope: string) => gatewayError(403, 'permission_error', `API key does not have ${scope} scope`),
  notAuthenticated: () => gatewayError(401, 'authentication_error', 'Not authenticated'),
  keyNotFound: () => gatewayError(404, 'not_found_error', 'API key not found'),
  /**
   * The client closed the connection before its answer: nobody reads this body. 499 (the
   * status proxies log for it) keeps the call out of the 5xx error log and counts; the call's
   * own outcome is `client_gone`.
   */
  clientGone: (requestId: string) => gatewayError(CLIENT_CLOSED_REQUEST, 'invalid_request_error', 'Client closed the connection', requestId),
};

export const GatewayError = Type.Object(
  {
    error: Type.Object({
      message: Type.String({ description: 'What went wrong, in words.' }),
      type: Type.String({ description: 'invalid_request_error, authentication_error, insufficient_quota, permission_error, not_found_error, rate_limit_error or server_error' }),
    }),
  },
  { $id: 'GatewayError', description: 'Error body of the gateway (variant P).' },
);
