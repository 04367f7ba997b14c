import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getBalance, ledgerSum } from '../../platform/billing/index.ts';
import { call } from '../../platform/testing/harness.ts';
import { revokeConsoleKey } from './keys.ts';
import { worstCaseMicros } from './metering.ts';
import { readChatCall } from './request.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

let gw: GatewayUnderTest;
let up: FakeUpstream;
before(async () => {
  up = await startFakeUpstream({ words: 20, delayMs: 40 });
  gw = await startGateway({ models: upstreamModels(up.url, [{ id: 'gated-fast', timeout_ms: 300_000, retries: 0 }]), keyRecheckMs: 30 });
});
after(async () => {
  await gw.close();
  await up.close();
});

const chat = (key: string, body: unknown) => call(`${gw.url}/api/v1/chat/completions`, { body, headers: { authorization: `Bearer ${key}` } });
const hello = { model: 'fast', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 10 };
const fastModel = () => ({ id: 'fast', ownedBy: 'upstream', contextWindow: 8192, maxOutputTokens: 100, inputPrice: 1, outputPrice: 2, public: true });
const worst = (body: unknown) => worstCaseMicros(readChatCall(body), fastModel());

async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('50 concurrent calls against a balance covering 10 worst cases: exactly 10 run, 40 get 402, the balance never goes below zero', async () => {
  const body = { ...hello, model: 'gated-fast' };
  const hold = worst(body);
  const ws = await gw.workspace(0);
  await gw.db.query('INSERT INTO billing_balances (account_id, available_micros) VALUES ($1, $2)', [ws.accountId, 10 * hold]);
  await gw.db.query("INSERT INTO billing_ledger (account_id, kind, amount_micros, service) VALUES ($1, 'topup', $2, 'test')", [ws.accountId, 10 * hold]);
  let refused = 0;
  const calls = Array.from({ length: 50 }, () =>
    chat(ws.key, body).then((r) => {
      if (r.status === 402) refused++;
      return r;
    }),
  );
  // The upstream answers nobody until every call was either held or refused, so that all holds overlap.
  await until(async () => {
    const [row] = await gw.db.query<{ n: number }>('SELECT count(*)::int AS n FROM billing_holds WHERE account_id = $1', [ws.accountId]);
    return row!.n + refused === 50;
  }, 'every call to be held or refused', 200_000);
  assert.equal((await getBalance(gw.db, ws.accountId)).availableMicros, 0);
  up.openGate();
  const results = await Promise.all(calls);
  assert.equal(results.filter((r) => r.status === 200).length, 10);
  const refusals = results.filter((r) => r.status === 402);
  assert.equal(refusals.length, 40);
  for (const r of refusals) assert.deepEqual(r.body, { error: { message: 'Insufficient credits', type: 'insufficient_quota' } });
  const used = results.filter((r) => r.status === 200).reduce((s, r) => s + r.body.usage.prompt_tokens + 2 * r.body.usage.completion_tokens, 0);
  const balance = await getBalance(gw.db, ws.accountId);
  assert.deepEqual(balance, { accountId: ws.accountId, availableMicros: 10 * hold - used, heldMicros: 0 });
  assert.equal(await ledgerSum(gw.db, ws.accountId), balance.availableMicros);
});

test("a key's spendLimit covers everything it spent and holds: past it, 402 Spend limit reached for this API key", async () => {
  const ws = await gw.workspace(1);
  const { cookie } = await gw.signIn(ws.accountId);
  const hold = worst(hello);
  const first = await chat(ws.key, hello);
  assert.equal(first.status, 200);
  const cost = first.body.usage.prompt_tokens + 2 * first.body.usage.completion_tokens;
  // Room for what was already spent plus exactly one more worst case.
  const patched = await call(`${gw.url}/api/api-keys/${ws.keyId}`, { method: 'PATCH', body: { spendLimit: (cost + hold) / 1e6 }, headers: { cookie } });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.spendLimit, (cost + hold) / 1e6);
  assert.equal((await chat(ws.key, hello)).status, 200);
  const refused = await chat(ws.key, hello);
  assert.equal(refused.status, 402);
  assert.deepEqual(refused.body, { error: { message: 'Spend limit reached for this API key', type: 'insufficient_quota' } });
  assert.equal(refused.headers.get('x-service-request-id'), null);
  assert.deepEqual(await getBalance(gw.db, ws.accountId), { accountId: ws.accountId, availableMicros: 1_000_000 - 2 * cost, heldMicros: 0 });
  // Lifting the limit lets the key spend again.
  await call(`${gw.url}/api/api-keys/${ws.keyId}`, { method: 'PATCH', body: { spendLimit: null }, headers: { cookie } });
  assert.equal((await chat(ws.key, hello)).status, 200);
});

test('rpmLimit and tpmLimit answer 429 naming the limit, without Retry-After, and charge nothing', async () => {
  const { cookie, accountId } = await gw.signIn();
  const created = await call(`${gw.url}/api/api-keys`, { body: { name: 'limited' }, headers: { cookie } });
  await gw.db.query("INSERT INTO billing_balances (account_id, available_micros) VALUES ($1, 1000000)", [accountId]);
  const key = created.body.key as string;
  const patch = await call(`${gw.url}/api/api-keys/${created.body.id}`, { method: 'PATCH', body: { rpmLimit: 2 }, headers: { cookie } });
  assert.equal(patch.status, 200);
  assert.equal((await chat(key, hello)).status, 200);
  assert.equal((await chat(key, hello)).status, 200);
  const limited = await chat(key, hello);
  assert.equal(limited.status, 429);
  assert.deepEqual(limited.body, { error: { message: "Rate limit reached: this API key's rpmLimit is 2 requests per minute", type: 'rate_limit_error' } });
  assert.equal(limited.headers.get('retry-after'), null);
  // The key's lease given back, nothing is held: the 429 held nothing.
  await gw.drain();
  const before = await getBalance(gw.db, accountId);
  assert.equal(before.heldMicros, 0);

  const tpm = await call(`${gw.url}/api/api-keys`, { body: { name: 'tokens' }, headers: { cookie } });
  await call(`${gw.url}/api/api-keys/${tpm.body.id}`, { method: 'PATCH', body: { tpmLimit: 20 }, headers: { cookie } });
  const used = await chat(tpm.body.key, hello);
  assert.equal(used.status, 200);
  assert.ok(used.body.usage.total_tokens >= 10);
  await chat(tpm.body.key, hello);
  const tokenLimited = await chat(tpm.body.key, hello);
  assert.equal(tokenLimited.status, 429);
  assert.equal(tokenLimited.body.error.message, "Rate limit reached: this API key's tpmLimit is 20 tokens per minute");
  assert.equal(tokenLimited.headers.get('retry-after'), null);
});

test('a stream cut off by the client settles what was generated, not the worst case', async () => {
  const ws = await gw.workspace(1);
  const body = { model: 'slow-stream', messages: [{ role: 'user', content: 'tell me a long story' }], stream: true };
  const controller = new AbortController();
  const res = await fetch(`${gw.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  let text = '';
  while ((text.match(/"content":"[^"]+"/g) ?? []).length < 3) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  await until(async () => (await getBalance(gw.db, ws.accountId)).heldMicros === 0, 'the hold to be settled');
  const [usage] = await gw.db.query<{ completion_tokens: number; prompt_tokens: number; cost_micros: number }>(
    'SELECT prompt_tokens, completion_tokens, cost_micros FROM llm_gateway_usage WHERE key_id = $1',
    [ws.keyId],
  );
  assert.ok(usage!.completion_tokens >= 3 && usage!.completion_tokens < 20, `generated ${usage!.completion_tokens}`);
  assert.equal(usage!.cost_micros, usage!.prompt_tokens + 2 * usage!.completion_tokens);
  assert.ok(usage!.cost_micros < worst({ ...body, model: 'fast' }));
  assert.equal((await getBalance(gw.db, ws.accountId)).availableMicros, 1_000_000 - usage!.cost_micros);
});

test('a key revoked mid-stream ends the stream with the 401 error frame and charges only what was generated', async () => {
  const ws = await gw.workspace(1);
  const res = await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow-stream', messages: [{ role: 'user', content: 'go on' }], stream: true }),
  });
  const reader = res.body!.getReader();
  let text = '';
  while ((text.match(/"content":"[^"]+"/g) ?? []).length < 2) text += new TextDecoder().decode((await reader.read()).value);
  await revokeConsoleKey(gw.db, ws.accountId, ws.keyId);
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
  assert.ok(text.endsWith(`data: ${JSON.stringify({ error: { message: 'Invalid or expired API key', type: 'authentication_error' } })}\n\n`), text.slice(-200));
  assert.ok(!text.includes('[DONE]'));
  const delivered = (text.match(/"content":"[^"]+"/g) ?? []).length;
  assert.ok(delivered < 20);
  await gw.drain();
  const [usage] = await gw.db.query<{ completion_tokens: number; cost_micros: number; prompt_tokens: number }>(
    'SELECT prompt_tokens, completion_tokens, cost_micros FROM llm_gateway_usage WHERE key_id = $1',
    [ws.keyId],
  );
  assert.equal(usage!.completion_tokens, delivered);
  assert.equal((await getBalance(gw.db, ws.accountId)).availableMicros, 1_000_000 - usage!.cost_micros);
  assert.equal((await chat(ws.key, hello)).status, 401);
});
