/**
 * The chat application's one error catalogue. The spec gives the chat application no error
 * shape; it uses the platform's `{error: {message, type}}` (variant P and its console), with
 * `limit`, `limitValue` and `resetsAt` added on the daily-limit 429.
 */
import { Type } from 'typebox';
import { ApiError } from '../../platform/http/errors.ts';
import { errorShape } from '../../platform/http/error-shape.ts';

/** The error types and the status each usually answers with (a model's failure keeps its own status). */
export const CHAT_TYPES = {
  invalid_request_error: 400,
  authentication_error: 401,
  not_found_error: 404,
  rate_limit_error: 429,
  server_error: 500,
} as const;

export type ChatErrorType = keyof typeof CHAT_TYPES;

export const { format: formatChatError } = errorShape({
  codes: CHAT_TYPES,
  platform: { invalid: 'invalid_request_error', notFound: 'not_found_error', internal: 'server_error' },
  body: (type, error) => ({ error: { message: error.message, type, ...error.extra } }),
});

/** A refusal of `type` with the status of its case: a type answers more than one (a model's failure keeps the upstream's status). */
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
