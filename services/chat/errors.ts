/**
 * The chat application's one error catalogue. The spec gives the chat application no error
 * shape; it uses the platform's `{error: {message, type}}` (variant P and its console), with
 * `limit`, `limitValue` and `resetsAt` added on the daily-limit 429.
 */
import { Type } from 'typebox';
import { ApiError, type ErrorFormatter } from '../../platform/http/errors.ts';

export type ChatErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error';

const PLATFORM_CODES: Record<string, ChatErrorType> = {
  validation_error: 'invalid_request_error',
  invalid_json: 'invalid_request_error',
  body_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  bad_request: 'invalid_request_error',
  not_found: 'not_found_error',
  internal_error: 'server_error',
};
const TYPES = new Set<string>(['invalid_request_error', 'authentication_error', 'not_found_error', 'rate_limit_error', 'server_error']);

function typeOf(code: string, status: number): ChatErrorType {
  if (TYPES.has(code)) return code as ChatErrorType;
  return PLATFORM_CODES[code] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
}

export const formatChatError: ErrorFormatter = (error) => ({
  error: { message: error.message, type: typeOf(error.code, error.status), ...error.extra },
});

export function chatError(status: number, type: ChatErrorType, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): ApiError {
  return new ApiError(status, type, message, extra, headers);
}

export const errors = {
  notAuthenticated: () => chatError(401, 'authentication_error', 'Not authenticated'),
  badCredentials: () => chatError(401, 'authentication_error', 'Invalid email or password'),
  conversationNotFound: () => chatError(404, 'not_found_error', 'Conversation not found'),
  unknownModel: (id: string, known: readonly string[]) =>
    chatError(400, 'invalid_request_error', `Unknown model '${id}'; available: ${known.join(', ')}`),
};

/** The error body as OpenAPI sees it (declared once, referenced by every route). */
export const ChatErrorSchema = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      type: Type.String({ description: 'invalid_request_error, authentication_error, not_found_error, rate_limit_error or server_error' }),
      limit: Type.Optional(Type.String({ description: 'On a daily-limit 429: `messages` or `pro_messages`' })),
      limitValue: Type.Optional(Type.Integer({ description: 'On a daily-limit 429: the limit reached' })),
      resetsAt: Type.Optional(Type.String({ description: 'On a daily-limit 429: the next midnight UTC (ISO 8601)' })),
    }),
  },
  { $id: 'ChatError' },
);
