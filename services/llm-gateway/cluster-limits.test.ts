/**
 * A key's rpmLimit is one count for every gateway on the store, and a limit changed through
 * one gateway's console is in force on the others at their next call (change notices).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

let gw: GatewayUnderTest;
let other: Awaited<ReturnType<GatewayUnderTest['another']>>;
let up: FakeUpstream;
before(async () => {
  up = await startFakeUpstream({ words: 5, delayMs: 1 });
  gw = await startGateway({ models: upstreamModels(up.url) });
  other = await gw.another();
});
after(async () => {
  await other.close();
  await gw.close();
  await up.close();
});

const hello = { model: 'fast', messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 };
const chat = (url: string, key: string) => call(`${url}/api/v1/chat/completions`, { body: hello, headers: { authorization: `Bearer ${key}` } });

async function roomInMinute(seconds: number): Promise<void> {
  const left = 60 - new Date().getUTCSeconds();
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

test('calls spread over two gateways count against one rpmLimit', async () => {
  const { cookie, accountId } = await gw.signIn();
  await gw.db.query('INSERT INTO billing_balances (account_id, available_micros) VALUES ($1, 1000000)', [accountId]);
  const created = await call(`${gw.url}/api/api-keys`, { body: { name: 'shared' }, headers: { cookie } });
  assert.equal((await call(`${gw.url}/api/api-keys/${created.body.id}`, { method: 'PATCH', body: { rpmLimit: 4 }, headers: { cookie } })).status, 200);
  await roomInMinute(20);
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) statuses.push((await chat(i % 2 ? other.url : gw.url, created.body.key)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429, 429, 429]);
});

test("a limit changed through one gateway's console holds on the other at its next call", async () => {
  const { cookie, accountId } = await gw.signIn();
  await gw.db.query('INSERT INTO billing_balances (account_id, available_micros) VALUES ($1, 1000000)', [accountId]);
  const created = await call(`${gw.url}/api/api-keys`, { body: { name: 'changing' }, headers: { cookie } });
  await roomInMinute(20);
  // The other gateway reads the key's limits (none) and keeps them for a while.
  assert.equal((await chat(other.url, created.body.key)).status, 200);
  assert.equal((await chat(other.url, created.body.key)).status, 200);
  assert.equal((await call(`${gw.url}/api/api-keys/${created.body.id}`, { method: 'PATCH', body: { rpmLimit: 1 }, headers: { cookie } })).status, 200);
  // The notice is sent when the change commits; allow its delivery, not the cache's 5 s.
  await new Promise((r) => setTimeout(r, 100));
  const first = await chat(other.url, created.body.key);
  const second = await chat(other.url, created.body.key);
  assert.deepEqual([first.status, second.status], [200, 429], JSON.stringify(second.body));
  assert.equal(second.body.error.message, "Rate limit reached: this API key's rpmLimit is 1 requests per minute");
});
