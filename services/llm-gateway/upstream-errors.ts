/**
 * Model-layer failures in the spec's words: upstream statuses are kept (429 stays 429, an
 * upstream's 4xx keeps its status and message), an upstream that is down, cut off or answering
 * garbage is 502/503 `Service unavailable`, a model that cannot be loaded is 503 `Chat service
 * is not configured`. Every one carries X-Service-Request-Id: it reached the model layer.
 */
import { LanguageError } from '../../engines/language/errors.ts';
import type { ApiError } from '../../platform/http/errors.ts';
import { gatewayError } from './errors.ts';

/** The upstream's own message without our prefix naming its URL (never shown to clients). */
function upstreamWords(message: string): string {
  const answered = /^upstream https?:\/\/\S+ answered \d+: /.exec(message);
  return answered ? message.slice(answered[0].length) : message.replace(/^upstream https?:\/\/\S+ /, 'the upstream ');
}

export function modelLayerError(err: unknown, requestId: string): ApiError {
  if (!(err instanceof LanguageError)) return gatewayError(502, 'server_error', 'Service unavailable', requestId);
  switch (err.code) {
    case 'invalid_request':
    case 'context_length_exceeded':
      return gatewayError(err.status >= 400 && err.status < 500 ? err.status : 400, 'invalid_request_error', upstreamWords(err.message), requestId);
    case 'model_not_found':
      return gatewayError(err.status === 404 ? 404 : 400, 'invalid_request_error', upstreamWords(err.message), requestId);
    case 'rate_limited':
      // Forwarded without the upstream's Retry-After: variant P never sends one.
      return gatewayError(429, 'rate_limit_error', upstreamWords(err.message), requestId);
    case 'authentication_failed':
      return gatewayError(err.status, 'authentication_error', upstreamWords(err.message), requestId);
    case 'model_file_invalid':
      return gatewayError(503, 'server_error', 'Chat service is not configured', requestId);
    case 'upstream_error':
    case 'upstream_bad_response':
      return gatewayError(502, 'server_error', 'Service unavailable', requestId);
    default:
      // upstream_unavailable (no connection, or the upstream's own 502/503) and timeouts.
      return gatewayError(err.status === 502 ? 502 : 503, 'server_error', 'Service unavailable', requestId);
  }
}
