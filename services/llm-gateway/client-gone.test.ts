import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { getBalance } from '../../platform/billing/index.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

let gw: GatewayUnderTest;
let up: FakeUpstream;
before(async () => {
  up = await startFakeUpstream();
  gw = await startGateway({ models: upstreamModels(up.url, [{ id: 'gated-fast' }]) });
});
after(async () => {
  up.openGate();
  await gw.close();
  await up.close();
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (const end = Date.now() + 10_000; !(await check()); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Lines written at `error` and `info` by the gateway's loggers while `fn` runs (request loggers
 * are children of the app's and inherit these methods).
 */
async function logLines(fn: () => Promise<void>): Promise<{ error: unknown[][]; info: unknown[][] }> {
  const log = gw.app.log as unknown as Record<string, (...args: unknown[]) => void>;
  const lines = { error: [] as unknown[][], info: [] as unknown[][] };
  const saved = { error: Object.getOwnPropertyDescriptor(log, 'error'), info: Object.getOwnPropertyDescriptor(log, 'info') };
  log.error = (...args) => void lines.error.push(args);
  log.info = (...args) => void lines.info.push(args);
  try {
    await fn();
  } finally {
    for (const level of ['error', 'info'] as const) {
      const d = saved[level];
      if (d) Object.defineProperty(log, level, d);
      else delete log[level];
    }
  }
  return lines;
}

/** Sends a chat call on a raw connection, whose socket the test closes. */
function send(key: string, body: unknown) {
  const text = JSON.stringify(body);
  const req = request(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
  });
  req.on('error', () => {});
  req.end(text);
  return req;
}

const settled = async (accountId: string): Promise<boolean> => {
  await gw.drain();
  return (await getBalance(gw.db, accountId)).heldMicros === 0 && gw.gateway.leases.openLeases().length === 0;
};

test('a client that leaves a whole completion while the model runs is one info line with status 499, not a 5xx error, and pays for its prompt', async () => {
  const ws = await gw.workspace(1);
  const lines = await logLines(async () => {
    const req = send(ws.key, { model: 'gated-fast', messages: [{ role: 'user', content: 'hello there' }] });
    await until(() => up.bodies.some((b) => b.model === 'gated-fast'), 'the call to reach the model');
    req.destroy();
    await until(() => settled(ws.accountId), 'the call to settle');
  });
  assert.deepEqual(lines.error, []);
  const gone = lines.info.filter((args) => args[1] === 'client closed the connection');
  assert.equal(gone.length, 1);
  const fields = gone[0]![0] as Record<string, unknown>;
  assert.match(String(fields.service_request_id), /^chatcmpl-/);
  assert.deepEqual({ ...fields, service_request_id: undefined }, { route: '/api/v1/chat/completions', status: 499, outcome: 'client_gone', service_request_id: undefined });
  // The prompt was processed, nothing delivered: the usual estimate of 'hello there' (11 bytes:
  // 3 + 4 per message = 7 tokens) at 1 micro-dollar, as before.
  const [usage] = await gw.db.query<{ requests: number; prompt_tokens: number; completion_tokens: number; cost_micros: number }>(
    'SELECT requests, prompt_tokens, completion_tokens, cost_micros FROM llm_gateway_usage WHERE key_id = $1',
    [ws.keyId],
  );
  assert.deepEqual(usage, { requests: 1, prompt_tokens: 7, completion_tokens: 0, cost_micros: 7 });
  assert.equal((await getBalance(gw.db, ws.accountId)).availableMicros, 1_000_000 - 7);
});

test('a client that leaves a stream is one info line with status 499 and no error line', async () => {
  const ws = await gw.workspace(1);
  const lines = await logLines(async () => {
    const req = send(ws.key, { model: 'slow-stream', messages: [{ role: 'user', content: 'tell me a story' }], stream: true });
    const res = await new Promise<import('node:http').IncomingMessage>((resolve) => req.once('response', resolve));
    assert.equal(res.statusCode, 200);
    let text = '';
    await new Promise<void>((resolve) => {
      res.on('data', (c: Buffer) => {
        text += c.toString();
        if ((text.match(/"content":"[^"]+"/g) ?? []).length >= 2) resolve();
      });
    });
    req.destroy();
    await until(() => settled(ws.accountId), 'the stream to settle');
  });
  assert.deepEqual(lines.error, []);
  const gone = lines.info.filter((args) => args[1] === 'client closed the connection');
  assert.equal(gone.length, 1);
  assert.equal((gone[0]![0] as { status: number }).status, 499);
});
