/**
 * Restarting loses nothing of variant C: accounts, keys, licenses, counters and the signature
 * secret. The store (embedded, or PostgreSQL when DATABASE_URL is set) is opened, closed and reopened.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { allMigrations } from '../../platform/server.ts';
import { openPostgres } from '../../platform/storage/database.ts';
import { migrate } from '../../platform/storage/migrate.ts';
import { prepareSecrets } from '../../platform/secrets/index.ts';
import { openStore, type Store } from '../../platform/storage/store.ts';
import { call } from '../../platform/testing/harness.ts';
import { licensingCService } from './service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'lattice-c-restart-'));
// With DATABASE_URL the restart is of a PostgreSQL connection pool on a private schema; otherwise of the embedded store.
const databaseUrl = process.env.DATABASE_URL || null;
const schema = `restart_${randomBytes(6).toString('hex')}`;
after(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (databaseUrl) {
    const admin = openPostgres({ connectionString: databaseUrl, max: 1 });
    await admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.close();
  }
});

const MASTER_KEY = randomBytes(32).toString('base64');

async function openRestartableStore(): Promise<Pick<Store, 'db' | 'close'>> {
  const migrations = allMigrations([licensingCService]);
  if (!databaseUrl) return openStore({ dataDir, migrations });
  const admin = openPostgres({ connectionString: databaseUrl, max: 1 });
  await admin.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await admin.close();
  const db = openPostgres({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  await migrate(db, migrations);
  // What openStore does for the embedded store: the master key of the stored secrets.
  await prepareSecrets(db, null, { LATTICE_MASTER_KEY: MASTER_KEY });
  return { db, close: () => db.close() };
}

async function boot() {
  const store = await openRestartableStore();
  const app = await licensingCService.build({ db: store.db, dataDir, now: () => new Date(), queue: () => Promise.reject(new Error('no job queue in this test')) }, { prefix: '' });
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
