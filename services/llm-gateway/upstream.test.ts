import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, test } from 'node:test';
import { getBalance } from '../../platform/billing/index.ts';
import { call } from '../../platform/testing/harness.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

let gw: GatewayUnderTest;
let up: FakeUpstream;
let silent: Server;
before(async () => {
  up = await startFakeUpstream();
  // Accepts connections and never answers: the upstream that hangs.
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentPort = (silent.address() as { port: number }).port;
  // A port nobody listens on: the upstream that is down.
  const down = createServer();
  await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
  const downPort = (down.address() as { port: number }).port;
  await new Promise<void>((resolve) => down.close(() => resolve()));
  gw = await startGateway({
    models: upstreamModels(up.url, [
      { id: 'down', base_url: `http://127.0.0.1:${downPort}/v1`, retries: 1 },
      { id: 'hangs', base_url: `http://127.0.0.1:${silentPort}/v1`, timeout_ms: 300, retries: 0 },
      { id: 'broken-local', provider: 'local', path: '/nonexistent/model.gguf' },
    ]),
  });
});
after(async () => {
  await gw.close();
  await up.close();
  silent.close();
});

const chat = (key: string, body: unknown) => call(`${gw.url}/api/v1/chat/completions`, { body, headers: { authorization: `Bearer ${key}` } });
const ask = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });

async function expectNothingCharged(accountId: string): Promise<void> {
  // Written and the leases given back, what is left is what the calls charged: nothing.
  await gw.drain();
  assert.deepEqual(await getBalance(gw.db, accountId), { accountId, availableMicros: 1_000_000, heldMicros: 0 });
}

test('an upstream that is down answers 503 Service unavailable through the model layer and charges nothing', async () => {
  const ws = await gw.workspace(1);
  for (const stream of [false, true]) {
    const res = await chat(ws.key, ask('down', { stream }));
    assert.equal(res.status, 503);
    assert.deepEqual(res.body, { error: { message: 'Service unavailable', type: 'server_error' } });
    assert.match(res.headers.get('x-service-request-id') ?? '', /^chatcmpl-/);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  }
  await expectNothingCharged(ws.accountId);
});

test('an upstream that does not answer in time is a 503 after its timeout', async () => {
  const ws = await gw.workspace(1);
  const started = Date.now();
  const res = await chat(ws.key, ask('hangs'));
  assert.equal(res.status, 503);
  assert.equal(res.body.error.message, 'Service unavailable');
  assert.ok(Date.now() - started < 5_000);
  await expectNothingCharged(ws.accountId);
});

test('a 503 is retried (safe: nothing ran) and a 500 is not; both forward a 5xx when they persist', async () => {
  const ws = await gw.workspace(1);
  up.attempts.clear();
  const flaky = await chat(ws.key, ask('flaky-503'));
  assert.equal(flaky.status, 200);
  assert.equal(up.attempts.get('flaky-503'), 2);
  const unavailable = await chat(ws.key, ask('status-503'));
  assert.equal(unavailable.status, 503);
  assert.equal(up.attempts.get('status-503'), 2);
  const failed = await chat(ws.key, ask('status-500'));
  assert.equal(failed.status, 502);
  assert.deepEqual(failed.body, { error: { message: 'Service unavailable', type: 'server_error' } });
  assert.equal(up.attempts.get('status-500'), 1);
  assert.match(failed.headers.get('x-service-request-id') ?? '', /^chatcmpl-/);
});

test("an upstream's 400 and 429 are forwarded with their status and message, the 429 without Retry-After", async () => {
  const ws = await gw.workspace(1);
  const bad = await chat(ws.key, ask('status-400'));
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, { error: { message: 'upstream says 400', type: 'invalid_request_error' } });
  assert.match(bad.headers.get('x-service-request-id') ?? '', /^chatcmpl-/);
  const limited = await chat(ws.key, ask('status-429', { stream: true }));
  assert.equal(limited.status, 429);
  assert.equal(limited.body.error.type, 'rate_limit_error');
  assert.equal(limited.body.error.message, 'upstream says 429');
  assert.equal(limited.headers.get('retry-after'), null);
  await expectNothingCharged(ws.accountId);
});

test('a local model whose file cannot be loaded answers 503 Chat service is not configured', async () => {
  const ws = await gw.workspace(1);
  await gw.db.query(`UPDATE billing_balances SET available_micros = 1000000 WHERE account_id = $1`, [ws.accountId]);
  const res = await chat(ws.key, ask('broken-local', { max_tokens: 5 }));
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.deepEqual(res.body, { error: { message: 'Chat service is not configured', type: 'server_error' } });
  await expectNothingCharged(ws.accountId);
});
