/**
 * The OpenAI chat completions shape, declared once for every OpenAI-compatible API (the
 * gateway's /api/v1/chat/completions, the language API's /v1/chat/completions): the list of
 * OpenAI's request parameters each API must accept, OpenAI's refusal of any other field, and
 * the whole-reply body. Each API keeps only what it does with the parameters (validates them,
 * or accepts and drops them) and what it adds to the reply.
 */
import { Type, type TProperties } from 'typebox';
import { UNKNOWN_FIELD_MESSAGE } from './validation.ts';

/** Schema options that word the refusal of an unknown field as OpenAI words it. */
export const OPENAI_UNKNOWN_FIELD = { [UNKNOWN_FIELD_MESSAGE]: 'Unrecognized request argument supplied: {field}' } as const;

/**
 * OpenAI's chat completions parameters beyond model, messages, stream, temperature, top_p,
 * max_tokens, stop and seed. Clients built for OpenAI send them, so an OpenAI-compatible API
 * accepts every one of them (the gateway drops them; the language API checks their values).
 */
export const OPENAI_CHAT_PARAMETERS = [
  'max_completion_tokens', 'n', 'user', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs',
  'response_format', 'tools', 'tool_choice', 'parallel_tool_calls', 'functions', 'function_call', 'stream_options', 'modalities',
  'audio', 'web_search_options', 'prediction', 'metadata', 'store', 'service_tier', 'reasoning_effort', 'verbosity',
  'prompt_cache_key', 'safety_identifier',
] as const;

export type OpenAiChatParameter = (typeof OPENAI_CHAT_PARAMETERS)[number];

/** Tokens read and written by one reply. */
export const ChatUsage = Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() });

/** A whole (not streamed) chat completion: one assistant choice and its usage, then what the API adds (`extra`). */
export function chatCompletionSchema<Extra extends TProperties = Record<never, never>>(extra: Extra = {} as Extra) {
  return Type.Object({
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer(),
        message: Type.Object({ role: Type.Literal('assistant'), content: Type.String() }),
        finish_reason: Type.String({ description: 'stop or length' }),
      }),
    ),
    usage: ChatUsage,
    ...extra,
  });
}
