/**
 * Variant P's one error catalogue: every failure is `{error: {message, type}}` (spec, Errors).
 * Codes of the platform's own failures (validation, malformed JSON, oversized bodies, unknown
 * routes) map to the spec's types here, so no route builds an error body by hand.
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'insufficient_quota'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error';

const PLATFORM_CODES: Record<string, ErrorType> = {
  validation_error: 'invalid_request_error',
  invalid_json: 'invalid_request_error',
  body_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  bad_request: 'invalid_request_error',
  not_found: 'not_found_error',
  internal_error: 'server_error',
};

const TYPES = new Set<string>(['invalid_request_error', 'authentication_error', 'insufficient_quota', 'permission_error', 'not_found_error', 'rate_limit_error', 'server_error']);

function typeOf(code: string, status: number): ErrorType {
  if (TYPES.has(code)) return code as ErrorType;
  return PLATFORM_CODES[code] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
}

export const formatGatewayError: ErrorFormatter = (error) => ({ error: { message: error.message, type: typeOf(error.code, error.status) } });

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
