/**
 * Reads a chat completions body: only the spec's six fields are kept (model, messages,
 * stream, temperature, top_p, max_tokens); OpenAI's other parameters, which the route's
 * schema admits, are dropped without an error (spec, variant P rule 5). Wrong types and
 * out-of-range values are a 400 naming the field.
 */
import type { ChatMessage } from '../../engines/language/types.ts';
import { errors } from './errors.ts';

export interface ChatCall {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
}

const ROLES: Record<string, ChatMessage['role']> = { system: 'system', developer: 'system', user: 'user', assistant: 'assistant' };

/** Message content as text: a string, or the list of text parts OpenAI clients may send. */
function contentOf(value: unknown, i: number, role: string): string {
  if (typeof value === 'string') return value;
  if (value === null && role === 'assistant') return '';
  if (Array.isArray(value) && value.every((p) => p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string')) {
    return value.map((p) => (p as { text: string }).text).join('');
  }
  throw errors.invalid(`messages[${i}].content must be a string or a list of text parts`);
}

function optionalNumber(body: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw errors.invalid(`${field} must be a number from ${min} to ${max}`);
  return v;
}

export function readChatCall(body: unknown): ChatCall {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw errors.modelAndMessages();
  const b = body as Record<string, unknown>;
  if (b.model === undefined || b.model === null || b.model === '' || b.messages === undefined || b.messages === null) throw errors.modelAndMessages();
  if (typeof b.model !== 'string' || b.model.length > 256) throw errors.invalid('model must be a string');
  if (!Array.isArray(b.messages)) throw errors.invalid('messages must be an array of {role, content}');
  if (b.messages.length === 0) throw errors.modelAndMessages();
  const messages = b.messages.map((m, i): ChatMessage => {
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw errors.invalid(`messages[${i}] must be an object with role and content`);
    const { role, content } = m as { role?: unknown; content?: unknown };
    const mapped = typeof role === 'string' ? ROLES[role] : undefined;
    if (!mapped) throw errors.invalid(`messages[${i}].role must be system, user or assistant`);
    return { role: mapped, content: contentOf(content, i, mapped) };
  });
  if (!messages.some((m) => m.role === 'user')) throw errors.invalid('messages must contain a user message');
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean') throw errors.invalid('stream must be a boolean');
  const call: ChatCall = { model: b.model, messages, stream: b.stream === true };
  const temperature = optionalNumber(b, 'temperature', 0, 2);
  const topP = optionalNumber(b, 'top_p', 0, 1);
  if (temperature !== undefined) call.temperature = temperature;
  if (topP !== undefined) call.top_p = topP;
  if (b.max_tokens !== undefined && b.max_tokens !== null) {
    if (typeof b.max_tokens !== 'number' || !Number.isInteger(b.max_tokens) || b.max_tokens < 1) throw errors.invalid('max_tokens must be a positive integer');
    call.max_tokens = b.max_tokens;
  }
  return call;
}
