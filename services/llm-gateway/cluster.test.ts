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

describe('three processes serving the language-model gateway', { skip }, () => {
  let cluster: Cluster;
  let up: FakeUpstream;
  before(async () => {
    up = await startFakeUpstream({ words: 8, delayMs: 20, record: false });
    const dir = mkdtempSync(join(tmpdir(), 'lattice-cluster-models-'));
    const models = join(dir, 'models.json');
    const model = { id: 'fast', provider: 'openai', base_url: up.url, pricing: { input: 1, output: 2 }, context_window: 8192, max_output_tokens: 100, timeout_ms: 10_000, retries: 0 };
    writeFileSync(models, JSON.stringify({ models: [model] }));
    cluster = await startCluster(pg!, { services: ['llm-gateway'], env: { LATTICE_MODELS: models } });
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
