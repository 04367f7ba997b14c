/**
 * Three `lattice serve` processes on one PostgreSQL serving core and platform: a key's limit is
 * exact with requests spread over them, the platform's per-address limit is counted once, and a
 * revoked key stops on every process at its next request (platform/testing/cluster.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revokeKey } from '../../platform/identity/keys.ts';
import { call } from '../../platform/testing/harness.ts';
import { clusterKey, clusterTestServer, roomInMinute, startCluster, type Cluster } from '../../platform/testing/cluster.ts';

const { url: pg, skip } = await clusterTestServer();

describe('three processes serving core and platform', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster(pg!, { services: ['core', 'platform'], env: { LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE: '20' } });
  });
  after(async () => {
    await cluster?.close();
  });

  test("a key's requests per minute are exact with requests spread over the three", async () => {
    const { key } = await clusterKey(cluster.db, 'core', 'core', 'free');
    await roomInMinute(30);
    const statuses: number[] = [];
    for (let i = 0; i < 75; i++) {
      const p = cluster.processes[i % 3]!;
      statuses.push((await call(`${p.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })).status);
    }
    assert.equal(statuses.filter((s) => s === 200).length, 60, statuses.join(','));
    assert.deepEqual(statuses.slice(60), new Array(15).fill(429));
  });

  test('concurrent requests over the three admit no more than the limit', async () => {
    const { key } = await clusterKey(cluster.db, 'core', 'core', 'free');
    await roomInMinute(30);
    const all = await Promise.all(
      Array.from({ length: 120 }, (_, i) => call(`${cluster.processes[i % 3]!.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })),
    );
    const ok = all.filter((r) => r.status === 200).length;
    assert.ok(ok <= 60, `${ok} admitted`);
    // Units a process held unspent go back within a second: the rest of the minute's budget is then admitted.
    await new Promise((r) => setTimeout(r, 1_500));
    let more = 0;
    for (let i = 0; i < 60; i++) if ((await call(`${cluster.processes[i % 3]!.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })).status === 200) more++;
    assert.equal(ok + more, 60);
  });

  test("the platform's per-address limit is counted once for the cluster", async () => {
    await roomInMinute(20);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await call(`${cluster.processes[i % 3]!.urls.platform}/api/v1/platform/execution/jobs/none`)).status);
    // Before the key is looked at: 20 pass the limit (and are 401 without a key), the rest are 429.
    assert.equal(statuses.filter((s) => s !== 429).length, 20, statuses.join(','));
  });

  test('a revoked key stops working on every process at the next request', async () => {
    const { key, id } = await clusterKey(cluster.db, 'core', 'core', 'pro');
    for (const p of cluster.processes) assert.equal((await call(`${p.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })).status, 200);
    await revokeKey(cluster.db, id);
    // NOTIFY is delivered when the revocation commits; allow its delivery (milliseconds), not a cache's lifetime.
    await new Promise((r) => setTimeout(r, 200));
    for (const p of cluster.processes) assert.equal((await call(`${p.urls.core}/api/v2/backends`, { headers: { 'x-api-key': key } })).status, 401);
  });
});
