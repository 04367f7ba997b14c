/**
 * Three `lattice serve` processes on one PostgreSQL serving the gateway: money is exact with
 * calls spread over them (balance never below zero, every charge a call answered, the ledger
 * equal to the balance).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getBalance, ledgerSum, topUp } from '../../platform/billing/index.ts';
import { createAccount } from '../../platform/identity/accounts.ts';
import { call } from '../../platform/testing/harness.ts';
import { clusterTestServer, startCluster, type Cluster } from '../../platform/testing/cluster.ts';
import { createConsoleKey } from './keys.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';

const { url: pg, skip } = await clusterTestServer();

/** Three processes serving the gateway, with one model on a fake upstream. */
async function startGatewayCluster(): Promise<{ cluster: Cluster; up: FakeUpstream }> {
  const up = await startFakeUpstream({ words: 8, delayMs: 20, record: false });
  const dir = mkdtempSync(join(tmpdir(), 'lattice-cluster-models-'));
  const models = join(dir, 'models.json');
  const model = { id: 'fast', provider: 'openai', base_url: up.url, pricing: { input: 1, output: 2 }, context_window: 8192, max_output_tokens: 100, timeout_ms: 10_000, retries: 0 };
  writeFileSync(models, JSON.stringify({ models: [model] }));
  return { cluster: await startCluster(pg!, { services: ['llm-gateway'], env: { LATTICE_MODELS: models } }), up };
}

describe('three processes serving the language-model gateway', { skip }, () => {
  let cluster: Cluster;
  let up: FakeUpstream;
  before(async () => {
    ({ cluster, up } = await startGatewayCluster());
  });
  after(async () => {
    await cluster?.close();
    await up?.close();
  });

  test('money is exact with calls spread over the three: the balance never goes below zero and every charge is a call answered', async () => {
    const account = await createAccount(cluster.db, { email: `gw-cluster-${Date.now()}@example.test` });
    const key = (await createConsoleKey(cluster.db, account.id, 'cluster')).key;
    const credit = 2_000;
    await topUp(cluster.db, { accountId: account.id, micros: credit });
    const body = { model: 'fast', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 10 };
    const results = await Promise.all(
      Array.from({ length: 90 }, (_, i) =>
        call(`${cluster.processes[i % 3]!.urls['llm-gateway']}/api/v1/chat/completions`, { body, headers: { authorization: `Bearer ${key}` } }),
      ),
    );
    const answered = results.filter((r) => r.status === 200);
    assert.ok(answered.length > 0, 'some calls ran');
    assert.ok(results.every((r) => r.status === 200 || r.status === 402), results.map((r) => r.status).join(','));
    const cost = answered.reduce((s, r) => s + r.body.usage.prompt_tokens + 2 * r.body.usage.completion_tokens, 0);
    const during = await getBalance(cluster.db, account.id);
    assert.ok(during.availableMicros >= 0);
    // Stopping gives every lease back after writing its charges: then the ledger is exact.
    await Promise.all(cluster.processes.map((p) => p.kill('SIGTERM')));
    const balance = await getBalance(cluster.db, account.id);
    assert.deepEqual(balance, { accountId: account.id, availableMicros: credit - cost, heldMicros: 0 });
    assert.equal(await ledgerSum(cluster.db, account.id), credit - cost);
  });
});

describe('a gateway process killed with SIGKILL mid-load', { skip }, () => {
  let cluster: Cluster;
  let up: FakeUpstream;
  before(async () => {
    ({ cluster, up } = await startGatewayCluster());
  });
  after(async () => {
    await cluster?.close();
    await up?.close();
  });

  test('has charged every call it answered, once, and the balance never went below zero', async () => {
    const account = await createAccount(cluster.db, { email: `gw-kill-${Date.now()}@example.test` });
    const key = (await createConsoleKey(cluster.db, account.id, 'cluster')).key;
    await topUp(cluster.db, { accountId: account.id, micros: 1_000_000 });
    const body = { model: 'fast', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 10 };
    const victim = cluster.processes[0]!;
    const answeredIds: string[] = [];
    let killed: Promise<void> | undefined;
    // Waves of calls on the victim; it is killed the moment its tenth answer arrives, when the
    // charges of the calls it has just answered are the newest it has.
    const calls = Array.from({ length: 40 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, (i % 8) * 15));
      const r = await call(`${victim.urls['llm-gateway']}/api/v1/chat/completions`, { body, headers: { authorization: `Bearer ${key}` } }).catch(() => null);
      if (r?.status === 200 && !killed) {
        answeredIds.push(r.body.id);
        if (answeredIds.length === 10) killed = victim.kill('SIGKILL');
      }
    });
    await Promise.all(calls);
    await killed;
    assert.ok(killed, 'the victim answered ten calls');
    const rows = await cluster.db.query<{ reference: string; n: string | number }>(
      `SELECT reference, count(*) AS n FROM billing_ledger WHERE account_id = $1 AND kind = 'charge' GROUP BY reference`,
      [account.id],
    );
    const charges = new Map(rows.map((r) => [r.reference, Number(r.n)]));
    for (const id of answeredIds) assert.equal(charges.get(id), 1, `answered call ${id} is charged once`);
    const balance = await getBalance(cluster.db, account.id);
    assert.ok(balance.availableMicros >= 0);
    // The survivors still charge calls of the same key.
    const after = await call(`${cluster.processes[1]!.urls['llm-gateway']}/api/v1/chat/completions`, { body, headers: { authorization: `Bearer ${key}` } });
    assert.equal(after.status, 200, JSON.stringify(after.body));
    const [row] = await cluster.db.query<{ n: string | number }>(`SELECT count(*) AS n FROM billing_ledger WHERE account_id = $1 AND kind = 'charge' AND reference = $2`, [account.id, after.body.id]);
    assert.equal(Number(row!.n), 1);
  });
});
