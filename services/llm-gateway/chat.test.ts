import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getBalance, ledgerEntries } from '../../platform/billing/index.ts';
import { keyAuthenticatorFor } from '../../platform/identity/key-cache.ts';
import { call } from '../../platform/testing/harness.ts';
import { revokeConsoleKey } from './keys.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

let gw: GatewayUnderTest;
let up: FakeUpstream;
before(async () => {
  up = await startFakeUpstream();
  gw = await startGateway({ models: upstreamModels(up.url) });
});
after(async () => {
  await gw.close();
  await up.close();
});

const chat = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`${gw.url}/api/v1/chat/completions`, { body, headers: { authorization: `Bearer ${key}`, ...headers } });
const hello = { model: 'fast', messages: [{ role: 'user', content: 'hello there' }] };

test('a whole completion answers the chat.completion shape, carries X-Service-Request-Id and charges exactly its usage', async () => {
  const ws = await gw.workspace(1);
  const res = await chat(ws.key, { ...hello, max_tokens: 3, temperature: 0.5, top_p: 0.9 });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('x-service-request-id') ?? '', /^chatcmpl-/);
  assert.equal(res.body.id, res.headers.get('x-service-request-id'));
  assert.equal(res.body.object, 'chat.completion');
  assert.equal(res.body.model, 'fast');
  assert.deepEqual(res.body.choices, [{ index: 0, message: { role: 'assistant', content: 'w0 w1 w2' }, finish_reason: 'length' }]);
  assert.deepEqual(res.body.usage, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
  // 5 prompt tokens at 1 micro-dollar, 3 output tokens at 2. The call's charge is written by
  // the credit leases' flusher; drained, the key's lease is given back too.
  await gw.drain();
  const balance = await getBalance(gw.db, ws.accountId);
  assert.deepEqual(balance, { accountId: ws.accountId, availableMicros: 1_000_000 - 11, heldMicros: 0 });
  const charges = (await ledgerEntries(gw.db, ws.accountId)).filter((e) => e.kind === 'charge').map((e) => [e.amountMicros, e.reference]);
  assert.deepEqual(charges, [[-11, res.body.id]]);
  const [usage] = await gw.db.query<{ requests: number; prompt_tokens: number; completion_tokens: number; cost_micros: number }>(
    'SELECT requests, prompt_tokens, completion_tokens, cost_micros FROM llm_gateway_usage WHERE key_id = $1',
    [ws.keyId],
  );
  assert.deepEqual(usage, { requests: 1, prompt_tokens: 5, completion_tokens: 3, cost_micros: 11 });
});

test('only the six fields reach the model; tools, seed, stop, n and the rest are dropped without an error', async () => {
  const ws = await gw.workspace(1);
  up.bodies.length = 0;
  const res = await chat(ws.key, {
    ...hello,
    temperature: 0.2,
    tools: [{ type: 'function', function: { name: 'x' } }],
    tool_choice: 'auto',
    response_format: { type: 'json_object' },
    seed: 7,
    stop: ['w2'],
    n: 3,
    logprobs: true,
    presence_penalty: 1,
    frequency_penalty: 1,
    user: 'someone',
  }, { 'idempotency-key': 'abc' });
  assert.equal(res.status, 200);
  assert.equal(res.body.choices.length, 1);
  assert.deepEqual(Object.keys(up.bodies[0]!).sort(), ['messages', 'model', 'stream', 'temperature']);
});

test('a max_tokens above the model output limit reaches the model as that limit, which the hold covers', async () => {
  const ws = await gw.workspace(1);
  up.bodies.length = 0;
  const res = await chat(ws.key, { ...hello, max_tokens: 5000 });
  assert.equal(res.status, 200);
  assert.equal(up.bodies[0]!.max_tokens, 100);
});

test('a streamed completion is text/event-stream with no-cache, chunk frames and a final data: [DONE]', async () => {
  const ws = await gw.workspace(1);
  const res = await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...hello, stream: true }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  assert.match(res.headers.get('x-service-request-id') ?? '', /^chatcmpl-/);
  const text = await res.text();
  assert.ok(text.endsWith('data: [DONE]\n\n'));
  const frames = text.split('\n\n').filter(Boolean).slice(0, -1).map((f) => JSON.parse(f.slice('data: '.length)));
  assert.ok(frames.every((f) => f.object === 'chat.completion.chunk' && f.id === res.headers.get('x-service-request-id')));
  assert.equal(frames.map((f) => f.choices[0].delta.content ?? '').join(''), 'w0 w1 w2 w3 w4');
  const last = frames.at(-1);
  assert.equal(last.choices[0].finish_reason, 'stop');
  assert.deepEqual(last.usage, { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });
  await gw.drain();
  assert.equal((await getBalance(gw.db, ws.accountId)).availableMicros, 1_000_000 - 15);
});

test('GET /api/v1/models lists the catalog as {object: list, data} with context windows', async () => {
  const ws = await gw.workspace(1);
  const res = await call(`${gw.url}/api/v1/models`, { headers: { authorization: `Bearer ${ws.key}` } });
  assert.equal(res.status, 200);
  assert.equal(res.body.object, 'list');
  const fast = res.body.data.find((m: { id: string }) => m.id === 'fast');
  assert.deepEqual(fast, { id: 'fast', object: 'model', owned_by: 'upstream', context_window: 8192 });
  assert.ok(res.body.data.some((m: { id: string }) => m.id === 'lattice-tiny'));
});

test('requests rejected before the model layer answer the spec messages and carry no X-Service-Request-Id', async () => {
  const ws = await gw.workspace(1);
  const cases: [string, Awaited<ReturnType<typeof call>>, number, string, string][] = [
    ['no model', await chat(ws.key, { messages: hello.messages }), 400, 'invalid_request_error', 'model and messages are required'],
    ['no messages', await chat(ws.key, { model: 'fast' }), 400, 'invalid_request_error', 'model and messages are required'],
    ['empty messages', await chat(ws.key, { model: 'fast', messages: [] }), 400, 'invalid_request_error', 'model and messages are required'],
    ['no header', await call(`${gw.url}/api/v1/chat/completions`, { body: hello }), 401, 'authentication_error', 'Missing or invalid API key'],
    ['not bearer', await chat('x', hello, { authorization: `Basic ${ws.key}` }), 401, 'authentication_error', 'Missing or invalid API key'],
    ['wrong prefix', await chat('sk-other_123456789012345678901234', hello), 401, 'authentication_error', 'Missing or invalid API key'],
    ['unknown key', await chat(`${ws.key.slice(0, -4)}AAAA`, hello), 401, 'authentication_error', 'Invalid or expired API key'],
  ];
  for (const [what, res, status, type, message] of cases) {
    assert.equal(res.status, status, what);
    assert.deepEqual(res.body, { error: { message, type } }, what);
    assert.equal(res.headers.get('x-service-request-id'), null, what);
  }
  const wrongTypes: [unknown, RegExp][] = [
    [{ model: 5, messages: hello.messages }, /model must be a string/],
    [{ model: 'fast', messages: 'hi' }, /messages must be an array/],
    [{ model: 'fast', messages: [{ role: 'robot', content: 'x' }] }, /messages\[0\]\.role/],
    [{ model: 'fast', messages: [{ role: 'user', content: 5 }] }, /messages\[0\]\.content/],
    [{ ...hello, stream: 'yes' }, /stream must be a boolean/],
    [{ ...hello, temperature: 3 }, /temperature must be a number from 0 to 2/],
    [{ ...hello, top_p: '0.5' }, /top_p/],
    [{ ...hello, max_tokens: 1.5 }, /max_tokens must be a positive integer/],
    [{ ...hello, max_tokens: 0 }, /max_tokens must be a positive integer/],
  ];
  for (const [body, message] of wrongTypes) {
    const res = await chat(ws.key, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.type, 'invalid_request_error');
    assert.match(res.body.error.message, message);
    assert.equal(res.headers.get('x-service-request-id'), null);
  }
  const malformed = await call(`${gw.url}/api/v1/chat/completions`, { method: 'POST', rawBody: '', headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' } });
  assert.equal(malformed.status, 400);
  const broken = await call(`${gw.url}/api/v1/chat/completions`, { rawBody: '{"model": "fast",', headers: { authorization: `Bearer ${ws.key}` } });
  assert.equal(broken.status, 400);
  assert.equal(broken.body.error.type, 'invalid_request_error');
  assert.match(broken.body.error.message, /Malformed JSON/);
  // A body that is not declared JSON is the documented 415, also when it holds valid JSON.
  for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded']) {
    const res = await call(`${gw.url}/api/v1/chat/completions`, { rawBody: JSON.stringify(hello), headers: { authorization: `Bearer ${ws.key}`, 'content-type': type } });
    assert.equal(res.status, 415, type);
    assert.deepEqual(res.body, { error: { message: 'Content-Type must be application/json', type: 'invalid_request_error' } });
    assert.equal(res.headers.get('x-service-request-id'), null);
  }
  const huge = await chat(ws.key, { ...hello, messages: [{ role: 'user', content: 'x'.repeat(5 * 1024 * 1024) }] });
  assert.equal(huge.status, 400);
  assert.deepEqual(huge.body, { error: { message: 'Request body is too large', type: 'invalid_request_error' } });
  // Nothing was held or charged by any of these.
  assert.deepEqual(await getBalance(gw.db, ws.accountId), { accountId: ws.accountId, availableMicros: 1_000_000, heldMicros: 0 });
});

test('a key without chat:write gets 403, a revoked or expired key 401 Invalid or expired API key', async () => {
  const ws = await gw.workspace(1);
  await gw.db.query("UPDATE api_keys SET scopes = '{models:read}' WHERE id = $1", [ws.keyId]);
  (await keyAuthenticatorFor(gw.db)).clear();
  const scoped = await chat(ws.key, hello);
  assert.equal(scoped.status, 403);
  assert.deepEqual(scoped.body, { error: { message: 'API key does not have chat:write scope', type: 'permission_error' } });
  assert.equal((await call(`${gw.url}/api/v1/models`, { headers: { authorization: `Bearer ${ws.key}` } })).status, 200);

  const other = await gw.workspace(1);
  await revokeConsoleKey(gw.db, other.accountId, other.keyId);
  const revoked = await chat(other.key, hello);
  assert.equal(revoked.status, 401);
  assert.equal(revoked.body.error.message, 'Invalid or expired API key');

  const expiring = await gw.newKey({ expiresAt: new Date(Date.now() + 60_000) });
  await gw.db.query("INSERT INTO billing_balances (account_id, available_micros) VALUES ($1, 1000000)", [expiring.accountId]);
  gw.clock.set(new Date(Date.now() + 120_000));
  try {
    const expired = await chat(expiring.key, hello);
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error.message, 'Invalid or expired API key');
  } finally {
    gw.clock.set(new Date());
  }
});

test('a workspace with no credit gets 402 Insufficient credits on every endpoint before any model runs', async () => {
  const ws = await gw.workspace(0);
  up.bodies.length = 0;
  const res = await chat(ws.key, hello);
  assert.equal(res.status, 402);
  assert.deepEqual(res.body, { error: { message: 'Insufficient credits', type: 'insufficient_quota' } });
  assert.equal(res.headers.get('x-service-request-id'), null);
  const unknownModel = await chat(ws.key, { ...hello, model: 'nope' });
  assert.equal(unknownModel.status, 402);
  const models = await call(`${gw.url}/api/v1/models`, { headers: { authorization: `Bearer ${ws.key}` } });
  assert.equal(models.status, 402);
  assert.equal(up.bodies.length, 0);
});

test('a model that is not available answers 403 listing the available ids, through the model layer', async () => {
  const ws = await gw.workspace(1);
  const res = await chat(ws.key, { ...hello, model: 'gpt-imaginary' });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.type, 'permission_error');
  assert.match(res.body.error.message, /^Model gpt-imaginary is not available on this API\. Available models: .*lattice-tiny.*fast/);
  assert.match(res.headers.get('x-service-request-id') ?? '', /^chatcmpl-/);
  assert.equal((await getBalance(gw.db, ws.accountId)).availableMicros, 1_000_000);
});
