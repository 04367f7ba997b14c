/**
 * Three `lattice serve` processes on one PostgreSQL serving the language API: a tenant's
 * requests per minute and tokens per day hold for the cluster as a whole (platform/limits'
 * leased slices and tallies), and the admin usage report adds up what every process served.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DAY } from '../../platform/limits/windows.ts';
import { call } from '../../platform/testing/harness.ts';
import { clusterKey, clusterTestServer, eventually, roomInMinute, startCluster, type Cluster } from '../../platform/testing/cluster.ts';
import { tokensSubject } from './limits.ts';

const { url: pg, skip } = await clusterTestServer();

describe('three processes counting the language API’s limits', { skip }, () => {
  let cluster: Cluster;
  let admin = '';
  const url = (i: number) => cluster.processes[i % cluster.processes.length]!.urls.llm!;
  const as = (key: string) => ({ authorization: `Bearer ${key}` });
  const tenant = async (name: string): Promise<{ id: string; key: string }> => {
    const r = await call(`${url(0)}/v1/tenants`, { headers: as(admin), body: { name, tier: 'free' } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return { id: r.body.id, key: r.body.api_key };
  };
  before(async () => {
    cluster = await startCluster(pg!, { services: ['llm'] });
    admin = (await clusterKey(cluster.db, 'llm', 'lq', 'enterprise', 'admin')).key;
  });
  after(async () => {
    await cluster?.close();
  });

  test('a free tenant’s 20 requests a minute are 20 for the cluster, whichever processes serve them', async () => {
    const t = await tenant('minute');
    await roomInMinute(10);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await call(`${url(i)}/v1/embeddings`, { headers: as(t.key), body: { input: `flow ${i}` } })).status);
    assert.deepEqual(statuses, Array(20).fill(200));
    for (let p = 0; p < 3; p++) {
      const over = await call(`${url(p)}/v1/embeddings`, { headers: as(t.key), body: { input: 'one more' } });
      assert.equal(over.status, 429, `process ${p}: ${JSON.stringify(over.body)}`);
      assert.equal(over.body.error.code, 'RATE_LIMITED');
      assert.match(over.body.error.message, /20 requests per minute reached for tier free/);
    }
    // The report, read through any process, counts what all three served (once their batches are written).
    const today = await eventually('the report counts the 20 requests', async () => {
      const r = await call(`${url(2)}/v1/admin/usage?days=1`, { headers: as(admin) });
      const row = r.body.data?.find((d: { tenant_id: string }) => d.tenant_id === t.id);
      return row?.today.requests === 20 ? row.today : null;
    }, 10_000);
    assert.ok(today.tokens > 0);
  });

  test('tokens charged by one process end the tenant’s day on the others', async () => {
    const t = await tenant('tokens');
    // The day's budget (10,000 for free) spent but for 5 tokens, as earlier requests would have.
    await cluster.db.query('INSERT INTO limit_windows (subject, window_ms, window_start, taken, granted) VALUES ($1, $2, $3, 9995, 0)', [
      tokensSubject(t.id),
      DAY,
      Math.floor(Date.now() / DAY) * DAY,
    ]);
    // Served by process 0: it crosses the budget (a request is refused only once the day's tokens are spent).
    const crossing = await call(`${url(0)}/v1/embeddings`, { headers: as(t.key), body: { input: 'laminar boundary layer separation on a flat plate at high speed' } });
    assert.equal(crossing.status, 200, JSON.stringify(crossing.body));
    assert.ok(crossing.body.usage.total_tokens > 5);
    // The others refuse once process 0's batch is written and their copy of the count is read again.
    for (const p of [1, 2]) {
      const refused = await eventually(`process ${p} refuses`, async () => {
        const r = await call(`${url(p)}/v1/embeddings`, { headers: as(t.key), body: { input: 'x' } });
        return r.status === 429 ? r : null;
      }, 5_000);
      assert.equal(refused.body.error.code, 'RATE_LIMITED');
      assert.match(refused.body.error.message, /Daily limit of 10000 tokens reached for tier free/);
    }
    // A request that spends no tokens is still served.
    const feedback = await call(`${url(1)}/v1/tenants/${t.id}/feedback`, { headers: as(t.key), body: { type: 'thumbs_up' } });
    assert.equal(feedback.status, 201, JSON.stringify(feedback.body));
  });
});
