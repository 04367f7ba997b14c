// The default deployment: every catalog slot is served by the engine's built-in model.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseEvents, startChat, type ChatTest } from './testing.ts';

let chat: ChatTest;
before(async () => {
  chat = await startChat({ maxOutputTokens: 8 });
});
after(() => chat.close());

test('with no configuration the built-in model streams a real reply, with its token counts', async () => {
  const user = await chat.newUser();
  const c = (await chat.as(user, '/api/conversations', { method: 'POST' })).body;
  const res = await fetch(`${chat.url}/api/conversations/${c.id}/messages`, {
    method: 'POST',
    headers: { cookie: user.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ content: 'What is the boundary layer?', stream: true }),
  });
  assert.equal(res.status, 200);
  const events = parseEvents(await res.text());
  assert.equal(events[0]!.event, 'start');
  assert.equal(events.at(-1)!.event, 'done', JSON.stringify(events.at(-1)));
  const deltas = events.filter((e) => e.event === 'delta');
  assert.ok(deltas.length >= 1);
  const done = events.at(-1)!.data.message;
  assert.equal(done.content, deltas.map((e) => e.data.content).join(''));
  assert.ok(done.content.length > 0);
  assert.ok(done.promptTokens > 5, `prompt tokens ${done.promptTokens}`);
  assert.ok(done.completionTokens >= 1 && done.completionTokens <= 8, `completion tokens ${done.completionTokens}`);
});
