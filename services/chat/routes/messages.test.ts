import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseEvents, startChat, startUpstream, type ChatTest, type ChatUser, type Upstream } from '../testing.ts';

let upstream: Upstream;
let chat: ChatTest;
before(async () => {
  upstream = await startUpstream({ delayMs: 5 });
  chat = await startChat({}, upstream);
});
after(async () => {
  await chat.close();
  await upstream.close();
});

const newConversation = async (user: ChatUser, model?: string) =>
  (await chat.as(user, '/api/conversations', { body: model ? { model } : {} })).body as { id: string };

function post(user: ChatUser, id: string, body: unknown, signal?: AbortSignal) {
  return fetch(`${chat.url}/api/conversations/${id}/messages`, {
    method: 'POST',
    headers: { cookie: user.cookie, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

test('a whole reply is stored with the message, names the conversation and carries the day\'s usage', async () => {
  const user = await chat.newUser();
  const c = await newConversation(user);
  const res = await chat.as(user, `/api/conversations/${c.id}/messages`, { body: { content: 'How do wings make lift?\nPlease explain.' } });
  assert.equal(res.status, 200);
  assert.equal(res.body.userMessage.content, 'How do wings make lift?\nPlease explain.');
  assert.equal(res.body.message.role, 'assistant');
  assert.equal(res.body.message.content, 'Lift comes from pressure differences over the wing.');
  assert.equal(res.body.message.status, 'complete');
  assert.equal(res.body.message.model, 'lattice:compact');
  assert.equal(res.body.message.completionTokens, 8);
  assert.equal(res.body.usage.messages.used, 1);
  assert.equal(res.body.usage.messages.remaining, 999);
  assert.equal(res.body.usage.proMessages.used, 0);
  const read = await chat.as(user, `/api/conversations/${c.id}`);
  assert.equal(read.body.title, 'How do wings make lift?');
  assert.deepEqual(read.body.messages.map((m: any) => [m.role, m.status]), [['user', 'complete'], ['assistant', 'complete']]);
});

test('the model sees the whole conversation, and the slot caps the reply length', async () => {
  const user = await chat.newUser();
  const c = await newConversation(user);
  await chat.as(user, `/api/conversations/${c.id}/messages`, { body: { content: 'first question' } });
  await chat.as(user, `/api/conversations/${c.id}/messages`, { body: { content: 'second question' } });
  const sent = upstream.requests.at(-1)!;
  assert.deepEqual(sent.messages.map((m) => `${m.role}:${m.content}`), [
    'user:first question',
    'assistant:Lift comes from pressure differences over the wing.',
    'user:second question',
  ]);
  // The test service caps replies at 12 tokens (LATTICE_CHAT_MAX_OUTPUT_TOKENS).
  assert.equal(sent.max_tokens, 12);
});

test('a streamed reply arrives as server-sent events: start, deltas, done, and is stored', async () => {
  const user = await chat.newUser();
  const c = await newConversation(user);
  const res = await post(user, c.id, { content: 'Stream it', stream: true });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  assert.ok(res.headers.get('x-request-id'));
  const events = parseEvents(await res.text());
  assert.deepEqual(events.map((e) => e.event), ['start', ...Array(8).fill('delta'), 'done']);
  assert.equal(events[0]!.data.userMessage.content, 'Stream it');
  assert.equal(events[0]!.data.reply.status, 'streaming');
  assert.equal(events[0]!.data.conversation.title, 'Stream it');
  assert.equal(events[0]!.data.usage.messages.used, 1);
  const text = events.filter((e) => e.event === 'delta').map((e) => e.data.content).join('');
  const done = events.at(-1)!.data;
  assert.equal(done.message.content, text);
  assert.equal(done.message.status, 'complete');
  const stored = (await chat.as(user, `/api/conversations/${c.id}`)).body.messages;
  assert.equal(stored[1].content, text);
  assert.equal(stored[1].id, events[0]!.data.reply.id);
});

test('closing the stream stops the model and keeps the text so far as a stopped reply', async () => {
  const { words, delayMs } = upstream;
  upstream.words = Array.from({ length: 40 }, (_, i) => `w${i} `);
  upstream.delayMs = 150;
  const abortedBefore = upstream.aborted;
  try {
    const user = await chat.newUser();
    const c = await newConversation(user);
    const controller = new AbortController();
    const res = await post(user, c.id, { content: 'long answer please', stream: true }, controller.signal);
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('event: delta')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    // The server notices, stops the upstream call and stores the partial reply.
    let reply: any;
    for (let i = 0; i < 50; i++) {
      reply = (await chat.as(user, `/api/conversations/${c.id}`)).body.messages[1];
      if (reply.status !== 'streaming') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(reply.status, 'stopped');
    assert.match(reply.content, /^w0 /);
    assert.ok(reply.content.split(' ').length < 40, 'generation stopped early');
    for (let i = 0; i < 20 && upstream.aborted === abortedBefore; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(upstream.aborted, abortedBefore + 1, 'the upstream stream was closed');
    // A stopped reply still counts: the model ran.
    assert.equal((await chat.as(user, '/api/usage')).body.messages.used, 1);
  } finally {
    upstream.words = words;
    upstream.delayMs = delayMs;
  }
});

test('a model that fails before answering gives the message back and keeps the failure on the reply', async () => {
  const user = await chat.newUser();
  const c = await newConversation(user, 'lattice:reasoning');
  upstream.failWith = 503;
  try {
    const whole = await chat.as(user, `/api/conversations/${c.id}/messages`, { body: { content: 'will fail' } });
    assert.equal(whole.status, 502);
    assert.equal(whole.body.error.type, 'server_error');
    assert.match(whole.body.error.message, /^The model could not answer/);

    const streamed = parseEvents(await (await post(user, c.id, { content: 'will fail too', stream: true })).text());
    assert.deepEqual(streamed.map((e) => e.event), ['start', 'error']);
    assert.equal(streamed[1]!.data.error.type, 'server_error');
    assert.equal(streamed[1]!.data.message.status, 'failed');
  } finally {
    upstream.failWith = null;
  }
  const usage = (await chat.as(user, '/api/usage')).body;
  assert.equal(usage.messages.used, 0);
  assert.equal(usage.proMessages.used, 0);
  const stored = (await chat.as(user, `/api/conversations/${c.id}`)).body.messages;
  assert.deepEqual(stored.map((m: any) => m.status), ['complete', 'failed', 'complete', 'failed']);
  // Failed replies are not sent back to the model as history.
  const ok = await chat.as(user, `/api/conversations/${c.id}/messages`, { body: { content: 'now works' } });
  assert.equal(ok.status, 200);
  assert.deepEqual(upstream.requests.at(-1)!.messages.map((m) => m.role), ['user', 'user', 'user']);
});

test('two messages sent at once to one conversation are both kept, in order', async () => {
  const user = await chat.newUser();
  const c = await newConversation(user);
  const results = await Promise.all(['one', 'two', 'three'].map((content) => chat.as(user, `/api/conversations/${c.id}/messages`, { body: { content } })));
  assert.deepEqual(results.map((r) => r.status), [200, 200, 200]);
  const stored = (await chat.as(user, `/api/conversations/${c.id}`)).body.messages;
  assert.equal(stored.length, 6);
  assert.deepEqual(stored.filter((m: any) => m.role === 'user').map((m: any) => m.content).sort(), ['one', 'three', 'two']);
});
