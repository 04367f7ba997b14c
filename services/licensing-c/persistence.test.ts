/** Restarting loses nothing of variant C: accounts, keys, licenses, counters and the signature secret. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { allMigrations } from '../../platform/server.ts';
import { openStore } from '../../platform/storage/store.ts';
import { call } from '../../platform/testing/harness.ts';
import { licensingCService } from './service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'lattice-c-restart-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

async function boot() {
  const store = await openStore({ dataDir, migrations: allMigrations([licensingCService]) });
  const app = await licensingCService.build({ db: store.db, dataDir, now: () => new Date() }, { prefix: '' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    async stop() {
      await app.close();
      await store.close();
    },
  };
}

test('a registered key, its licenses and this month’s count work after a restart', async () => {
  const first = await boot();
  const reg = await call(`${first.url}/api/v1/customers/register`, {
    body: { email: 'restart-c@example.test', company_name: 'Restart', plan: 'starter' },
  });
  const auth = { authorization: `Bearer ${reg.body.api_key}` };
  const gen = await call(`${first.url}/api/v1/licenses/generate`, { body: { end_customer_id: 'e', features: ['f'] }, headers: auth });
  assert.equal(gen.status, 200);
  await first.stop();

  const second = await boot();
  try {
    const me = await call(`${second.url}/api/v1/customers/me`, { headers: auth });
    assert.equal(me.status, 200);
    assert.equal(me.body.used_this_month, 1);
    const check = await call(`${second.url}/api/v1/licenses/validate`, { body: { license_key: gen.body.license_key } });
    assert.equal(check.body.valid, true, 'the signature secret survived, so the license re-derives');
    assert.equal(check.body.quantum_verified, true);
    const stats = await call(`${second.url}/api/v1/stats`, { headers: auth });
    assert.equal(stats.body.total_licenses, 1);
    assert.equal(stats.body.quantum_fidelity_avg, gen.body.quantum_fidelity);
  } finally {
    await second.stop();
  }
});
