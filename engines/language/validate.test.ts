import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateChatRequest } from './validate.ts';

const ok = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };

test('a well-formed chat request passes', () => {
  assert.doesNotThrow(() => validateChatRequest({ ...ok, temperature: 0, top_p: 1, max_tokens: 5, stop: ['\n'] }));
});

test('out-of-range sampling fields and malformed messages are refused with the field named', () => {
  const cases: [object, RegExp][] = [
    [{ messages: [] }, /non-empty list/],
    [{ messages: [{ role: 'tool', content: 'x' }] }, /messages\[0\]\.role/],
    [{ messages: [{ role: 'user', content: 3 }] }, /messages\[0\]\.content/],
    [{ messages: [{ role: 'system', content: 'x' }] }, /user message/],
    [{ temperature: 2.5 }, /temperature/],
    [{ top_p: 1.5 }, /top_p/],
    [{ max_tokens: 0 }, /max_tokens/],
    [{ stop: [''] }, /stop/],
    [{ model: '' }, /model is required/],
  ];
  for (const [patch, message] of cases) assert.throws(() => validateChatRequest({ ...ok, ...patch } as typeof ok), message);
});
