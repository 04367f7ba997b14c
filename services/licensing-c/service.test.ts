/** Variant C end to end: registration, account, generate, validate, stats, SDK information, health. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { noticeDigest } from '../../platform/licenses/license-rows.ts';
import { nextNotice } from '../../platform/licenses/testing.ts';
import { call } from '../../platform/testing/harness.ts';
import { LICENSE_ROWS_TOPIC } from './store.ts';
import { startC, type CTest } from './testing.ts';

let c: CTest;
before(async () => {
  c = await startC();
});
after(() => c.svc.close());

describe('registration and account', () => {
  test('registration answers 201 with the key once; the key authenticates; /me never shows it', async () => {
    c.svc.clock.set('2026-03-01T00:00:00Z');
    const res = await call(`${c.svc.url}/api/v1/customers/register`, {
      body: { email: 'founder@acme.test', company_name: 'Acme', plan: 'Professional' },
    });
    assert.equal(res.status, 201);
    assert.match(res.body.api_key, /^lcc_[0-9A-Za-z]{32}$/);
    assert.equal(res.body.email, 'founder@acme.test');
    assert.equal(res.body.company_name, 'Acme');
    assert.equal(res.body.plan, 'professional');
    assert.equal(res.body.monthly_license_limit, 1000);
    assert.equal(res.body.licenses_generated_this_month, 0);
    assert.equal(typeof res.body.id, 'string');
    assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));

    const me = await c.as(res.body.api_key, '/api/v1/customers/me');
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, {
      id: res.body.id,
      email: 'founder@acme.test',
      company_name: 'Acme',
      plan: 'professional',
      monthly_limit: 1000,
      used_this_month: 0,
      created_at: res.body.created_at,
    });
    assert.equal(JSON.stringify(me.body).includes(res.body.api_key), false);
    const [stored] = await c.svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE key_hash = $1', [res.body.api_key]);
    assert.equal(stored!.n, 0, 'the plaintext key is not stored');
  });

  test('plans starter and enterprise have limits 100 and unlimited (999999999)', async () => {
    assert.equal((await c.register('starter')).body.monthly_license_limit, 100);
    assert.equal((await c.register('ENTERPRISE')).body.monthly_license_limit, 999_999_999);
  });

  test('an email that is already registered is a 400 and creates nothing', async () => {
    const body = { email: 'twice@acme.test', company_name: 'Acme', plan: 'starter' };
    assert.equal((await call(`${c.svc.url}/api/v1/customers/register`, { body })).status, 201);
    const [before] = await c.svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
    const again = await call(`${c.svc.url}/api/v1/customers/register`, { body: { ...body, email: 'TWICE@acme.test' } });
    assert.equal(again.status, 400);
    assert.deepEqual(again.body, { detail: 'An account with this email is already registered' });
    const [afterwards] = await c.svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
    assert.equal(afterwards!.n, before!.n);
  });
});

describe('generate and validate', () => {
  test('generate answers 200 with the license, measured fidelity and generation time', async () => {
    const { key, id } = await c.register('professional');
    c.svc.clock.set('2026-03-10T12:00:00.400Z');
    const res = await c.generate(key, { end_customer_id: 'shop-9', features: ['pro', 'api'], expires_in_days: 30, metadata: { seats: 3, tier: 'gold' } });
    assert.equal(res.status, 200);
    assert.match(res.body.license_key, /^LCK(-[A-HJ-NP-Z2-9]{4}){4}$/);
    assert.equal(res.body.customer_id, id);
    assert.equal(res.body.end_customer_id, 'shop-9');
    assert.deepEqual(res.body.features, ['pro', 'api']);
    assert.equal(res.body.issued_at, '2026-03-10T12:00:00Z');
    assert.equal(res.body.expires_at, '2026-04-09T12:00:00Z');
    assert.match(res.body.quantum_signature, /^[0-9a-f]{64}$/);
    assert.ok(res.body.quantum_fidelity > 0.5 && res.body.quantum_fidelity < 1);
    assert.ok(Number.isInteger(res.body.generation_time_ms) && res.body.generation_time_ms >= 0);
    assert.deepEqual(res.body.metadata, { seats: 3, tier: 'gold' });
  });

  test('validation needs no key and reports days remaining, rounded up, until the exact expiry', async () => {
    const { key, id } = await c.register();
    c.svc.clock.set('2026-05-01T00:00:00Z');
    const gen = await c.generate(key, { end_customer_id: 'v-1', expires_in_days: 10 });
    c.svc.clock.set('2026-05-01T00:00:01Z');
    const res = await c.validate(gen.body.license_key);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      valid: true,
      quantum_verified: true,
      message: 'License valid',
      customer_id: id,
      end_customer_id: 'v-1',
      features: ['pro'],
      issued_at: '2026-05-01T00:00:00Z',
      expires_at: '2026-05-11T00:00:00Z',
      days_remaining: 10,
      metadata: null,
    });
    c.svc.clock.set('2026-05-10T23:59:59Z');
    assert.equal((await c.validate(gen.body.license_key)).body.days_remaining, 1);
    c.svc.clock.set('2026-05-11T00:00:00Z');
    assert.deepEqual((await c.validate(gen.body.license_key)).body, { valid: false, quantum_verified: false, message: 'License expired' });
  });

  test('unknown keys, malformed keys and altered licenses are invalid', async () => {
    const { key } = await c.register();
    c.svc.clock.set('2026-05-01T00:00:00Z');
    assert.deepEqual((await c.validate('LCK-AAAA-BBBB-CCCC-DDDD')).body, { valid: false, quantum_verified: false, message: 'License not found' });
    assert.equal((await c.validate('hello')).body.valid, false);
    const gen = await c.generate(key, { end_customer_id: 'alter', features: ['basic'] });
    assert.equal((await c.validate(gen.body.license_key.toLowerCase())).body.valid, true);
    // The validated row is kept in memory; the trigger's change notice drops it (wait until the server heard it).
    const notice = await nextNotice(c.svc.db, LICENSE_ROWS_TOPIC, noticeDigest(gen.body.license_key));
    await c.svc.db.query(`UPDATE licensing_c_licenses SET end_customer_id = 'someone-else' WHERE license_key = $1`, [gen.body.license_key]);
    await notice.heard;
    assert.deepEqual((await c.validate(gen.body.license_key)).body, { valid: false, quantum_verified: false, message: 'Quantum signature mismatch' });
  });
});

describe('validation from memory', () => {
  test('a validated license deleted from the database is not found on the next request', async () => {
    const { key } = await c.register();
    c.svc.clock.set('2026-05-01T00:00:00Z');
    const gen = await c.generate(key, { end_customer_id: 'deleted' });
    for (let i = 0; i < 2; i++) assert.equal((await c.validate(gen.body.license_key)).body.valid, true);
    const notice = await nextNotice(c.svc.db, LICENSE_ROWS_TOPIC, noticeDigest(gen.body.license_key));
    await c.svc.db.query('DELETE FROM licensing_c_licenses WHERE license_key = $1', [gen.body.license_key]);
    await notice.heard;
    assert.deepEqual((await c.validate(gen.body.license_key)).body, { valid: false, quantum_verified: false, message: 'License not found' });
  });
});

describe('stats', () => {
  test('counts total, active, expired and this month, with averages of the measured figures', async () => {
    const { key } = await c.register('professional');
    c.svc.clock.set('2026-07-01T00:00:00Z');
    const empty = await c.as(key, '/api/v1/stats');
    assert.deepEqual(empty.body, {
      total_licenses: 0,
      active_licenses: 0,
      expired_licenses: 0,
      this_month: 0,
      monthly_limit: 1000,
      quantum_fidelity_avg: null,
      generation_time_avg_ms: null,
    });
    const a = await c.generate(key, { expires_in_days: 1 });
    const b = await c.generate(key, { expires_in_days: 100 });
    c.svc.clock.set('2026-07-02T00:00:00Z');
    const res = await c.as(key, '/api/v1/stats');
    assert.equal(res.body.total_licenses, 2);
    assert.equal(res.body.active_licenses, 1);
    assert.equal(res.body.expired_licenses, 1);
    assert.equal(res.body.this_month, 2);
    assert.ok(Math.abs(res.body.quantum_fidelity_avg - (a.body.quantum_fidelity + b.body.quantum_fidelity) / 2) < 1e-12);
    assert.equal(res.body.generation_time_avg_ms, (a.body.generation_time_ms + b.body.generation_time_ms) / 2);
    c.svc.clock.set('2026-08-01T00:00:00Z');
    assert.equal((await c.as(key, '/api/v1/stats')).body.this_month, 0);
  });
});

describe('SDK information and health', () => {
  test('each language gets installation, import, an example against this API, and the docs URL', async () => {
    for (const language of ['python', 'nodejs', 'java', 'csharp']) {
      const res = await call(`${c.svc.url}/api/v1/sdk/${language}`);
      assert.equal(res.status, 200, language);
      assert.equal(res.body.language, language);
      assert.ok(res.body.installation && res.body.import, language);
      assert.ok(res.body.example.includes(`${c.svc.url}`) || res.body.example.includes('api/v1/licenses/generate'), language);
      assert.ok(res.body.example.includes('/api/v1/licenses/validate') || res.body.example.includes('api/v1/licenses/validate'), language);
      assert.equal(res.body.docs, `${c.svc.url}/docs`);
    }
  });

  test('the nodejs entry points to the offline verifier package that exists in this repository', async () => {
    const res = await call(`${c.svc.url}/api/v1/sdk/nodejs`);
    assert.match(res.body.import, /from '@lattice\/license-verifier'/);
    assert.match(res.body.installation, /packages\/license-verifier/);
    const manifest = fileURLToPath(new URL('../../packages/license-verifier/package.json', import.meta.url));
    assert.ok(existsSync(manifest));
    assert.equal(JSON.parse(readFileSync(manifest, 'utf8')).name, '@lattice/license-verifier');
    const index = readFileSync(fileURLToPath(new URL('../../packages/license-verifier/index.ts', import.meta.url)), 'utf8');
    assert.match(index, /export class OfflineVerifier/);
  });

  test('an unknown language is a {detail} 404 naming the available ones', async () => {
    const res = await call(`${c.svc.url}/api/v1/sdk/cobol`);
    assert.equal(res.status, 404);
    assert.match(res.body.detail, /python, nodejs, java, csharp/);
  });

  test('the docs describe exactly the variant C routes', async () => {
    const res = await call(`${c.svc.url}/openapi.json`);
    assert.deepEqual(Object.keys(res.body.paths).sort(), [
      '/api/v1/customers/me',
      '/api/v1/customers/register',
      '/api/v1/licenses/generate',
      '/api/v1/licenses/validate',
      '/api/v1/sdk/{language}',
      '/api/v1/stats',
      '/health',
    ]);
    assert.equal((await fetch(`${c.svc.url}/redoc`)).status, 200);
  });

  test('/health says the quantum engine is ready from a real run', async () => {
    c.svc.clock.set('2026-01-02T03:04:05Z');
    assert.deepEqual((await call(`${c.svc.url}/health`)).body, { status: 'healthy', timestamp: '2026-01-02T03:04:05.000Z', quantum_ready: true });
  });
});
