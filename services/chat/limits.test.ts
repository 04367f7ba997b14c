import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startChat, startUpstream, type ChatTest, type ChatUser, type Upstream } from './testing.ts';
import { releaseMessage, reserveMessage } from './limits.ts';

// Small limits so that tests reach them: 5 messages a day, 3 of them to pro models.
let upstream: Upstream;
let chat: ChatTest;
before(async () => {
  upstream = await startUpstream();
  chat = await startChat({ dailyMessages: 5, dailyProMessages: 3 }, upstream);
});
after(async () => {
  await chat.close();
  await upstream.close();
});

const conversation = async (user: ChatUser, model = 'lattice:compact') =>
  (await chat.as(user, '/api/conversations', { body: { model } })).body.id as string;
const send = (user: ChatUser, id: string, content = 'hello') => chat.as(user, `/api/conversations/${id}/messages`, { body: { content } });

test('past the daily message limit a message answers 429 naming the limit and its reset at midnight UTC', async () => {
  chat.clock.set('2026-03-10T15:30:00Z');
  const user = await chat.newUser();
  const id = await conversation(user);
  for (let i = 0; i < 5; i++) assert.equal((await send(user, id)).status, 200);
  const refused = await send(user, id, 'one too many');
  assert.equal(refused.status, 429);
  assert.deepEqual(refused.body, {
    error: {
      message: 'Daily limit of 5 messages reached; it resets at 2026-03-11T00:00:00.000Z (midnight UTC)',
      type: 'rate_limit_error',
      limit: 'messages',
      limitValue: 5,
      resetsAt: '2026-03-11T00:00:00.000Z',
    },
  });
  assert.equal(refused.headers.get('retry-after'), String(8.5 * 3600));
  // The refused message was not stored and the model never saw it.
  const stored = (await chat.as(user, `/api/conversations/${id}`)).body.messages;
  assert.equal(stored.length, 10);
  assert.ok(!upstream.requests.some((r) => r.messages.some((m) => m.content === 'one too many')));
  const usage = (await chat.as(user, '/api/usage')).body;
  assert.deepEqual(usage.messages, { limit: 5, used: 5, remaining: 0 });
  assert.equal(usage.resetsAt, '2026-03-11T00:00:00.000Z');
  // A streamed request is refused the same way, before any stream starts.
  const streamed = await chat.as(user, `/api/conversations/${id}/messages`, { body: { content: 'x', stream: true } });
  assert.equal(streamed.status, 429);
  assert.equal(streamed.body.error.limit, 'messages');
});

test('the pro models have a separate, smaller counter, and their messages count against the daily limit too', async () => {
  chat.clock.set('2026-03-10T08:00:00Z');
  const user = await chat.newUser();
  const pro = await conversation(user, 'lattice:frontier-reasoning');
  const compact = await conversation(user);
  for (let i = 0; i < 3; i++) assert.equal((await send(user, pro)).status, 200);
  const refused = await send(user, pro);
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.limit, 'pro_messages');
  assert.equal(refused.body.error.limitValue, 3);
  assert.match(refused.body.error.message, /^Daily limit of 3 messages to pro models reached; it resets at 2026-03-11T00:00:00.000Z/);
  // Every pro model shares that counter; the others do not use it.
  assert.equal((await send(user, await conversation(user, 'lattice:multi-agent'))).status, 429);
  assert.equal((await send(user, compact)).status, 200);
  assert.equal((await send(user, await conversation(user, 'lattice:code'))).status, 200);
  const usage = (await chat.as(user, '/api/usage')).body;
  assert.deepEqual(usage.messages, { limit: 5, used: 5, remaining: 0 });
  assert.deepEqual(usage.proMessages, { limit: 3, used: 3, remaining: 0 });
  assert.equal((await send(user, compact)).body.error.limit, 'messages');
});

test('concurrent messages never overshoot either limit', async () => {
  chat.clock.set('2026-03-12T12:00:00Z');
  const user = await chat.newUser();
  const ids = await Promise.all([conversation(user), conversation(user, 'lattice:reasoning'), conversation(user, 'lattice:enterprise-long-context')]);
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => send(user, ids[i % 3]!, `m${i}`)));
  const ok = results.filter((r) => r.status === 200);
  assert.equal(ok.length, 5);
  assert.equal(results.filter((r) => r.status === 429).length, 25);
  const proOk = ok.filter((r) => r.body.message.model !== 'lattice:compact').length;
  assert.ok(proOk <= 3, `${proOk} pro messages passed`);
  const usage = (await chat.as(user, '/api/usage')).body;
  assert.equal(usage.messages.used, 5);
  assert.equal(usage.proMessages.used, proOk);
});

test('a reservation is exact under 50 concurrent calls, and a release goes back to the day it was counted on', async () => {
  const user = await chat.newUser();
  const day = new Date('2026-04-01T23:59:59Z');
  const tries = await Promise.allSettled(
    Array.from({ length: 50 }, (_, i) => reserveMessage(chat.db, { dailyMessages: 20, dailyProMessages: 7 }, user.accountId, i % 2 === 0, day)),
  );
  const granted = tries.filter((t) => t.status === 'fulfilled').map((t) => (t as PromiseFulfilledResult<Awaited<ReturnType<typeof reserveMessage>>>).value);
  assert.equal(granted.length, 20);
  assert.equal(granted.filter((g) => g.pro).length, 7);
  const [row] = await chat.db.query<{ messages: number; pro_messages: number }>(
    'SELECT messages, pro_messages FROM chat_daily_usage WHERE account_id = $1 AND day = $2',
    [user.accountId, '2026-04-01'],
  );
  assert.deepEqual([Number(row!.messages), Number(row!.pro_messages)], [20, 7]);
  // Released after midnight: the earlier day gets it back, the new day is untouched.
  await releaseMessage(chat.db, granted.find((g) => g.pro)!);
  await reserveMessage(chat.db, { dailyMessages: 20, dailyProMessages: 7 }, user.accountId, false, new Date('2026-04-02T00:00:01Z'));
  const rows = await chat.db.query<{ day: string; messages: number; pro_messages: number }>(
    "SELECT to_char(day, 'YYYY-MM-DD') AS day, messages, pro_messages FROM chat_daily_usage WHERE account_id = $1 ORDER BY day",
    [user.accountId],
  );
  assert.deepEqual(rows.map((r) => [r.day, Number(r.messages), Number(r.pro_messages)]), [
    ['2026-04-01', 19, 6],
    ['2026-04-02', 1, 0],
  ]);
});

test('the limits start again at midnight UTC', async () => {
  chat.clock.set('2026-05-20T23:59:58Z');
  const user = await chat.newUser();
  const id = await conversation(user);
  for (let i = 0; i < 5; i++) await send(user, id);
  assert.equal((await send(user, id)).status, 429);
  chat.clock.set('2026-05-20T23:59:59.999Z');
  const last = await send(user, id);
  assert.equal(last.status, 429);
  assert.equal(last.headers.get('retry-after'), '1');
  chat.clock.set('2026-05-21T00:00:00Z');
  const fresh = await send(user, id);
  assert.equal(fresh.status, 200);
  assert.deepEqual(fresh.body.usage.messages, { limit: 5, used: 1, remaining: 4 });
  assert.equal(fresh.body.usage.day, '2026-05-21');
});
