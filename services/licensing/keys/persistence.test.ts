/**
 * Restarting loses nothing of variant B: keys, licenses, revocations, usage counters, the
 * quantum-signature secret (old licenses still validate) and the KMS keys. The store (the
 * embedded one in a temporary data dir, or PostgreSQL when DATABASE_URL is set) is opened,
 * closed, and opened again.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createAccount, setPlan } from '../../../platform/identity/accounts.ts';
import { createKey } from '../../../platform/identity/keys.ts';
import { allMigrations } from '../../../platform/server.ts';
import { openPostgres } from '../../../platform/storage/database.ts';
import { migrate } from '../../../platform/storage/migrate.ts';
import { prepareSecrets } from '../../../platform/secrets/index.ts';
import { openStore, type Store } from '../../../platform/storage/store.ts';
import { call } from '../../../platform/testing/harness.ts';
import { licensingService } from '../service.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'lattice-b-restart-'));
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
  const migrations = allMigrations([licensingService]);
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
  const app = await licensingService.build({ db: store.db, dataDir, now: () => new Date(), queue: () => Promise.reject(new Error('no job queue in this test')) }, { prefix: '' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    store,
    url,
    async stop() {
      await app.close();
      await store.close();
    },
  };
}

test('keys, licenses, revocations, counters, the signature secret and KMS keys survive a restart', async () => {
  const first = await boot();
  const account = await createAccount(first.store.db, { email: 'restart@example.test', name: 'Restart' });
  await setPlan(first.store.db, account.id, 'licensing', 'Startup');
  const { key } = await createKey(first.store.db, { accountId: account.id, service: 'licensing', prefix: 'lic' });
  const as = (base: string, path: string, body?: unknown) => call(`${base}${path}`, { body, headers: { 'x-api-key': key } });
  const kept = await as(first.url, '/api/v1/licenses/generate', { end_customer_id: 'keep', features: ['a'] });
  const gone = await as(first.url, '/api/v1/licenses/generate', { end_customer_id: 'gone' });
  await as(first.url, `/api/v1/licenses/${gone.body.license_key}/revoke`, { reason: 'fraud' });
  const kmsBefore = (await call(`${first.url}/api/v1/kms/keys`)).body.keys;
  await first.stop();

  const second = await boot();
  try {
    const list = await as(second.url, '/api/v1/licenses');
    assert.equal(list.status, 200, 'the API key still authenticates');
    assert.deepEqual(
      list.body.licenses.map((l: { license_key: string; status: string }) => [l.license_key, l.status]),
      [[gone.body.license_key, 'revoked'], [kept.body.license_key, 'active']],
    );
    const validate = await as(second.url, '/api/v1/licenses/validate', { license_key: kept.body.license_key, end_customer_id: 'keep' });
    assert.deepEqual(validate.body, { valid: true, end_customer_id: 'keep', quantum_verified: true, message: 'License valid' });
    assert.deepEqual((await as(second.url, '/api/v1/revocations')).body.revoked_ids, [gone.body.license_key]);
    assert.equal((await as(second.url, '/api/v1/stats')).body.licenses_generated_month, 2);
    assert.deepEqual((await call(`${second.url}/api/v1/kms/keys`)).body.keys, kmsBefore);
    const again = await as(second.url, `/api/v1/licenses/${gone.body.license_key}/revoke`, {});
    assert.equal(again.status, 400, 'a revocation stays final across restarts');
  } finally {
    await second.stop();
  }
});
