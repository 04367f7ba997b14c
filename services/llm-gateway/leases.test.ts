import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { after, before, test } from 'node:test';
import { captureFromHold, getBalance, getHold, ledgerEntries, ledgerSum, placeHold, spentInScope, topUp } from '../../platform/billing/index.ts';
import { call } from '../../platform/testing/harness.ts';
import { createConsoleKey, spendScope } from './keys.ts';
import { worstCaseMicros } from './metering.ts';
import { readChatCall } from './request.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';
import { recordUsage, recordUsageBatch, type UsageRecord } from './usage.ts';

let gw: GatewayUnderTest;
let up: FakeUpstream;
before(async () => {
  up = await startFakeUpstream({ words: 20 });
  // No floor: a lease is exactly 32 worst cases, so that small balances are shared between leases and calls' own holds.
  gw = await startGateway({ models: upstreamModels(up.url, [{ id: 'gated-fast', timeout_ms: 300_000, retries: 0 }]), leases: { floorMicros: 1 } });
});
after(async () => {
  await gw.close();
  await up.close();
});

const chat = (url: string, key: string, body: unknown) => call(`${url}/api/v1/chat/completions`, { body, headers: { authorization: `Bearer ${key}` } });
const hello = { model: 'fast', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 10 };
const fastModel = () => ({ id: 'fast', ownedBy: 'upstream', contextWindow: 8192, maxOutputTokens: 100, inputPrice: 1, outputPrice: 2, public: true });
const worst = (body: unknown) => worstCaseMicros(readChatCall(body), fastModel());
const cost = (usage: { prompt_tokens: number; completion_tokens: number }) => usage.prompt_tokens + 2 * usage.completion_tokens;

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function openHolds(accountId: string): Promise<number> {
  const [row] = await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM billing_holds WHERE account_id = $1 AND status = 'open'", [accountId]);
  return row!.n;
}

test('calls run on one lease per key: one hold for many calls, one charge row per call with its request id, usage written by the flusher', async () => {
  const ws = await gw.workspace(1);
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await chat(gw.url, ws.key, hello));
  assert.ok(answers.every((r) => r.status === 200));
  const [holds] = await gw.db.query<{ n: number }>('SELECT count(*)::int AS n FROM billing_holds WHERE account_id = $1', [ws.accountId]);
  assert.equal(holds!.n, 1);
  assert.equal(await openHolds(ws.accountId), 1);
  // The flusher writes within its interval, without a drain.
  await until(async () => (await ledgerEntries(gw.db, ws.accountId)).filter((e) => e.kind === 'charge').length === 5, 'the charges to be written');
  const charges = (await ledgerEntries(gw.db, ws.accountId)).filter((e) => e.kind === 'charge').map((e) => [e.reference, e.amountMicros]).reverse();
  assert.deepEqual(charges, answers.map((r) => [r.body.id, -cost(r.body.usage)]));
  const spent = answers.reduce((s, r) => s + cost(r.body.usage), 0);
  await until(async () => (await gw.db.query('SELECT 1 FROM llm_gateway_usage WHERE key_id = $1', [ws.keyId])).length === 1, 'the usage row');
  const [usage] = await gw.db.query<{ requests: number; cost_micros: number }>('SELECT requests::int, cost_micros::int FROM llm_gateway_usage WHERE key_id = $1', [ws.keyId]);
  assert.deepEqual(usage, { requests: 5, cost_micros: spent });
  // Idle, the lease goes back by itself: the balance is exactly what the calls cost.
  await until(async () => (await openHolds(ws.accountId)) === 0, 'the idle lease to be given back');
  assert.deepEqual(await getBalance(gw.db, ws.accountId), { accountId: ws.accountId, availableMicros: 1_000_000 - spent, heldMicros: 0 });
  assert.equal(await ledgerSum(gw.db, ws.accountId), 1_000_000 - spent);
});

test("a process's leases are written and given back when it closes", async () => {
  const other = await gw.another();
  const ws = await gw.workspace(1);
  let spent = 0;
  for (const stream of [false, false, true]) {
    const res = await fetch(`${other.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...hello, stream }) });
    assert.equal(res.status, 200);
    const text = await res.text();
    const usage = stream ? JSON.parse(text.split('\n\n').filter(Boolean).at(-2)!.slice(6)).usage : JSON.parse(text).usage;
    spent += cost(usage);
  }
  assert.equal(other.gateway.leases.openLeases().length, 1);
  assert.equal(await openHolds(ws.accountId), 1);
  await other.close();
  assert.equal(other.gateway.leases.openLeases().length, 0);
  assert.equal(await openHolds(ws.accountId), 0);
  assert.deepEqual(await getBalance(gw.db, ws.accountId), { accountId: ws.accountId, availableMicros: 1_000_000 - spent, heldMicros: 0 });
  const [usage] = await gw.db.query<{ requests: number; cost_micros: number }>('SELECT requests::int, cost_micros::int FROM llm_gateway_usage WHERE key_id = $1', [ws.keyId]);
  assert.deepEqual(usage, { requests: 3, cost_micros: spent });
  assert.equal(await ledgerSum(gw.db, ws.accountId), 1_000_000 - spent);
});

test('two gateway instances on one store cannot overspend together: at most the balance in worst cases runs, never below zero', async () => {
  const other = await gw.another();
  try {
    const body = { ...hello, model: 'gated-fast' };
    const w = worst(body);
    const ws = await gw.workspace(0);
    // 40 worst cases: one instance's lease takes 32, the other gets the 8 left as calls' own holds.
    await topUp(gw.db, { accountId: ws.accountId, micros: 40 * w });
    up.bodies.length = 0;
    let refused = 0;
    const calls = Array.from({ length: 120 }, (_, i) =>
      chat(i % 2 ? other.url : gw.url, ws.key, body).then((r) => {
        if (r.status === 402) refused++;
        return r;
      }),
    );
    // Nobody is answered until every call either reached the model or was refused: all reservations overlap.
    await until(() => up.bodies.length + refused === 120, 'every call to be admitted or refused', 200_000);
    const admitted = up.bodies.length;
    assert.ok(admitted <= 40, `admitted ${admitted}`);
    assert.ok(admitted >= 8, `admitted ${admitted}`);
    assert.ok((await getBalance(gw.db, ws.accountId)).availableMicros >= 0);
    up.openGate();
    const results = await Promise.all(calls);
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, admitted);
    for (const r of results.filter((x) => x.status !== 200)) assert.deepEqual(r.body, { error: { message: 'Insufficient credits', type: 'insufficient_quota' } });
    await gw.drain();
    await other.gateway.leases.drain();
    const spent = ok.reduce((s, r) => s + cost(r.body.usage), 0);
    assert.deepEqual(await getBalance(gw.db, ws.accountId), { accountId: ws.accountId, availableMicros: 40 * w - spent, heldMicros: 0 });
    assert.equal(await ledgerSum(gw.db, ws.accountId), 40 * w - spent);
    const [usage] = await gw.db.query<{ requests: number; cost_micros: number }>('SELECT requests::int, cost_micros::int FROM llm_gateway_usage WHERE key_id = $1', [ws.keyId]);
    assert.deepEqual(usage, { requests: ok.length, cost_micros: spent });
  } finally {
    await other.close();
  }
});

test("two instances together never pass a key's spendLimit, counted on the ledger with held money", async () => {
  const other = await gw.another();
  try {
    const w = worst(hello);
    const { cookie, accountId } = await gw.signIn();
    await topUp(gw.db, { accountId, micros: 1_000_000 });
    const key = await createConsoleKey(gw.db, accountId, 'limited');
    const limit = 12 * w;
    const patched = await call(`${gw.url}/api/api-keys/${key.id}`, { method: 'PATCH', body: { spendLimit: limit / 1e6 }, headers: { cookie } });
    assert.equal(patched.status, 200);
    const results = [];
    // Rounds of concurrent calls on both instances until the limit refuses every call.
    for (let round = 0; round < 30; round++) {
      const batch = await Promise.all(Array.from({ length: 8 }, (_, i) => chat(i % 2 ? other.url : gw.url, key.key, hello)));
      results.push(...batch);
      assert.ok((await spentInScope(gw.db, spendScope(key.id))) <= limit);
      if (batch.every((r) => r.status === 402)) break;
    }
    const ok = results.filter((r) => r.status === 200);
    assert.ok(ok.length >= 12, `ran ${ok.length}`);
    for (const r of results.filter((x) => x.status !== 200)) assert.deepEqual(r.body, { error: { message: 'Spend limit reached for this API key', type: 'insufficient_quota' } });
    await gw.drain();
    await other.gateway.leases.drain();
    const spent = ok.reduce((s, r) => s + cost(r.body.usage), 0);
    assert.ok(spent <= limit);
    assert.equal(await spentInScope(gw.db, spendScope(key.id)), spent);
    assert.deepEqual(await getBalance(gw.db, accountId), { accountId, availableMicros: 1_000_000 - spent, heldMicros: 0 });
  } finally {
    await other.close();
  }
});

test("the flusher's batch writes the same usage rows and lastUsedAt as one write per call", async () => {
  const ws = await gw.workspace(1);
  const a = (await createConsoleKey(gw.db, ws.accountId, 'per call')).id;
  const b = (await createConsoleKey(gw.db, ws.accountId, 'batched')).id;
  const at = (s: string) => new Date(s);
  const calls: Omit<UsageRecord, 'keyId'>[] = [
    { accountId: ws.accountId, model: 'fast', at: at('2026-03-01T23:59:59.500Z'), promptTokens: 5, completionTokens: 3, costMicros: 11 },
    { accountId: ws.accountId, model: 'fast', at: at('2026-03-02T00:00:00.100Z'), promptTokens: 7, completionTokens: 0, costMicros: 7 },
    { accountId: ws.accountId, model: 'lattice-tiny', at: at('2026-03-02T00:00:01Z'), promptTokens: 1, completionTokens: 9, costMicros: 4 },
    { accountId: ws.accountId, model: 'fast', at: at('2026-03-02T00:00:02Z'), promptTokens: 2, completionTokens: 2, costMicros: 6 },
    { accountId: ws.accountId, model: 'fast', at: at('2026-03-02T00:00:03Z'), promptTokens: 0, completionTokens: 0, costMicros: 0 },
  ];
  for (const c of calls) await recordUsage(gw.db, { ...c, keyId: a });
  await recordUsageBatch(gw.db, calls.map((c) => ({ ...c, keyId: b })));
  const rows = (keyId: string) =>
    gw.db.query("SELECT model, to_char(day, 'YYYY-MM-DD') AS day, requests::int, prompt_tokens::int, completion_tokens::int, cost_micros::int, account_id FROM llm_gateway_usage WHERE key_id = $1 ORDER BY day, model", [keyId]);
  const perCall = await rows(a);
  assert.equal(perCall.length, 3);
  assert.deepEqual(await rows(b), perCall);
  const lastUsed = async (keyId: string) => (await gw.db.query<{ t: Date }>('SELECT last_used_at AS t FROM api_keys WHERE id = $1', [keyId]))[0]!.t;
  assert.deepEqual(await lastUsed(b), await lastUsed(a));
  // A second batch adds to the same rows, as more calls would.
  await recordUsage(gw.db, { ...calls[0]!, keyId: a });
  await recordUsageBatch(gw.db, [{ ...calls[0]!, keyId: b }]);
  assert.deepEqual(await rows(b), await rows(a));
});

test("a killed process's lease is given back by the repair at the next start; what it had charged stays charged", async () => {
  const ws = await gw.workspace(1);
  // A pid that surely ended: a process that already exited.
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
  const lease = await placeHold(gw.db, {
    accountId: ws.accountId,
    service: 'llm-gateway',
    reference: 'lease-of-a-killed-process',
    micros: 10_000,
    owner: `llm-gateway@${hostname()}:${deadPid}`,
    expiresAt: new Date(Date.now() + 12 * 60_000),
  });
  await captureFromHold(gw.db, lease.id, 300, 'chatcmpl-before-the-kill');
  const restarted = await gw.another();
  try {
    assert.equal((await getHold(gw.db, lease.id))!.status, 'released');
    assert.deepEqual(await getBalance(gw.db, ws.accountId), { accountId: ws.accountId, availableMicros: 1_000_000 - 300, heldMicros: 0 });
    assert.equal(await ledgerSum(gw.db, ws.accountId), 1_000_000 - 300);
  } finally {
    await restarted.close();
  }
});
