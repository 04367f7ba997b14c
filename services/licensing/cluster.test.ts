/**
 * Two `lattice serve` processes on one PostgreSQL serving licensing (variants A and B) and
 * licensing-c: a license row that one process validated, and so keeps in memory, is dropped
 * by both at once when the row changes behind them, through the change notice that names the
 * row by its key's digest (platform/licenses/license-rows.ts), well before the rows' 5 s age
 * would drop it (platform/testing/cluster.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { clusterKey, clusterTestServer, eventually, startCluster, type Cluster } from '../../platform/testing/cluster.ts';

const { url: pg, skip } = await clusterTestServer();

describe('two processes serving licensing', { skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster(pg!, { services: ['licensing', 'licensing-c'], size: 2 });
  });
  after(async () => {
    await cluster?.close();
  });

  test('a B license changed by hand is answered from the change on both processes at once', async () => {
    const { key } = await clusterKey(cluster.db, 'licensing', 'lic', 'Enterprise');
    const headers = { 'x-api-key': key };
    const gen = await call(`${cluster.processes[0]!.urls.licensing}/api/v1/licenses/generate`, { headers, body: { end_customer_id: 'cluster-b', features: ['pro'] } });
    assert.equal(gen.status, 201);
    const licenseKey = gen.body.license_key as string;
    const validate = async (p: number) =>
      (await call(`${cluster.processes[p]!.urls.licensing}/api/v1/licenses/validate`, { headers, body: { license_key: licenseKey, end_customer_id: 'cluster-b' } })).body.message as string;
    // Both keep the row in memory now.
    for (const p of [0, 1]) for (let i = 0; i < 2; i++) assert.equal(await validate(p), 'License valid');
    await cluster.db.query(`UPDATE licensing_b_licenses SET revoked_at = now(), revoked_reason = 'by hand' WHERE license_key = $1`, [licenseKey]);
    const t0 = performance.now();
    for (const p of [0, 1]) await eventually(`process ${p} answers revoked`, async () => (await validate(p)) === 'License revoked', 10_000);
    assert.ok(performance.now() - t0 < 3_000, `the notice, not the 5 s age, dropped the rows (${(performance.now() - t0).toFixed(0)} ms)`);
  });

  test('a C license deleted by hand is not found on either process at its next requests', async () => {
    const base = (p: number) => cluster.processes[p]!.urls['licensing-c']!;
    const register = await call(`${base(0)}/api/v1/customers/register`, { body: { email: 'cluster-c@example.test', company_name: 'Cluster', plan: 'enterprise' } });
    assert.equal(register.status, 201);
    const gen = await call(`${base(0)}/api/v1/licenses/generate`, { headers: { authorization: `Bearer ${register.body.api_key}` }, body: { end_customer_id: 'cluster-c', features: ['pro'] } });
    const licenseKey = gen.body.license_key as string;
    const validate = async (p: number) => (await call(`${base(p)}/api/v1/licenses/validate`, { body: { license_key: licenseKey } })).body.message as string;
    for (const p of [0, 1]) for (let i = 0; i < 2; i++) assert.equal(await validate(p), 'License valid');
    await cluster.db.query('DELETE FROM licensing_c_licenses WHERE license_key = $1', [licenseKey]);
    const t0 = performance.now();
    for (const p of [0, 1]) await eventually(`process ${p} answers not found`, async () => (await validate(p)) === 'License not found', 10_000);
    assert.ok(performance.now() - t0 < 3_000, `the notice, not the 5 s age, dropped the rows (${(performance.now() - t0).toFixed(0)} ms)`);
  });
});
