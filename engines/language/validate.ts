// Checks a chat request before any backend sees it, so every provider rejects bad input the same way.
import { invalid } from './errors.ts';
import type { ChatRequest } from './types.ts';

const ROLES = new Set(['system', 'user', 'assistant']);

export function validateChatRequest(req: ChatRequest): void {
  if (typeof req.model !== 'string' || req.model === '') throw invalid('model is required');
  if (!Array.isArray(req.messages) || req.messages.length === 0) throw invalid('messages must be a non-empty list');
  req.messages.forEach((m, i) => {
    if (!m || typeof m !== 'object') throw invalid(`messages[${i}] must be an object`);
    if (!ROLES.has(m.role)) throw invalid(`messages[${i}].role must be system, user or assistant`);
    if (typeof m.content !== 'string') throw invalid(`messages[${i}].content must be a string`);
  });
  if (!req.messages.some((m) => m.role === 'user')) throw invalid('messages must contain a user message');
  if (req.temperature !== undefined && !(req.temperature >= 0 && req.temperature <= 2)) throw invalid('temperature must be between 0 and 2');
  if (req.top_p !== undefined && !(req.top_p >= 0 && req.top_p <= 1)) throw invalid('top_p must be between 0 and 1');
  if (req.max_tokens !== undefined && !(Number.isInteger(req.max_tokens) && req.max_tokens > 0)) throw invalid('max_tokens must be a positive integer');
  if (req.stop !== undefined) {
    if (!Array.isArray(req.stop) || req.stop.some((s) => typeof s !== 'string' || s === '')) throw invalid('stop must be a list of non-empty strings');
    if (req.stop.length > 4) throw invalid('stop accepts at most 4 sequences');
  }
}
