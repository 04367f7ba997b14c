/** Variant B account routes, plans, service info, authentication and the monthly limit. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revokeKey } from '../../../platform/identity/keys.ts';
import { call } from '../../../platform/testing/harness.ts';
import { startB, type BTest } from './b-testing.ts';

let b: BTest;
before(async () => {
  b = await startB();
});
after(() => b.svc.close());

async function setUsed(accountId: string, value: number): Promise<void> {
  const period = b.svc.clock.now().toISOString().slice(0, 7);
  await b.svc.db.query(
    `INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ($1, 'licensing', 'b_licenses_generated', $2, $3)
     ON CONFLICT (account_id, service, counter, period) DO UPDATE SET value = EXCLUDED.value`,
    [accountId, period, value],
  );
}

describe('public routes', () => {
  test('/ describes the service with version 1.0.0 and the docs path', async () => {
    const res = await call(`${b.svc.url}/`);
    assert.equal(res.status, 200);
    assert.equal(res.body.version, '1.0.0');
    assert.equal(res.body.docs, '/docs');
    for (const field of ['service', 'tagline', 'powered_by', 'get_started']) assert.equal(typeof res.body[field], 'string', field);
  });

  test('/health reports the quantum engine available from a real run', async () => {
    b.svc.clock.set('2026-02-03T04:05:06Z');
    const res = await call(`${b.svc.url}/health`);
    assert.deepEqual(res.body, { status: 'healthy', service: 'licensing', qcos_available: true, timestamp: '2026-02-03T04:05:06.000Z' });
  });

  test('/api/v1/plans lists Free, Startup, Business and Enterprise with their monthly licenses', async () => {
    const res = await call(`${b.svc.url}/api/v1/plans`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.map((p: { name: string; licenses_per_month: number }) => [p.name, p.licenses_per_month]),
      [['Free', 100], ['Startup', 10_000], ['Business', 100_000], ['Enterprise', 999_999_999]],
    );
    for (const p of res.body) {
      assert.equal(typeof p.price_monthly, 'string');
      assert.ok(Array.isArray(p.features) && p.features.length > 0);
    }
  });

  test('the docs describe the variant B routes', async () => {
    const res = await call(`${b.svc.url}/openapi.json`);
    for (const path of ['/api/v1/licenses/generate', '/api/v1/licenses/{license_key}/revoke', '/api/v1/kms/sign', '/api/v1/revocations']) {
      assert.ok(res.body.paths[path], path);
    }
  });
});

describe('account', () => {
  test('customers/me shows the integer id, plan, allowance and this month’s use', async () => {
    b.svc.clock.set('2026-04-15T00:00:00Z');
    const { key } = await b.svc.newKey({ plan: 'business' });
    await b.generate(key);
    await b.generate(key);
    const res = await b.as(key, '/api/v1/customers/me');
    assert.equal(res.status, 200);
    assert.equal(Number.isInteger(res.body.id), true);
    assert.match(res.body.email, /@example\.test$/);
    assert.equal(res.body.name, 'Test');
    assert.equal(res.body.company_name, null);
    assert.equal(res.body.plan, 'Business');
    assert.equal(res.body.max_licenses_month, 100_000);
    assert.equal(res.body.licenses_used_month, 2);
    assert.equal(res.body.email_verified, false);
    assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));
  });

  test('stats count this month and reset with the next month', async () => {
    b.svc.clock.set('2026-04-30T23:59:59Z');
    const { key } = await b.svc.newKey();
    await b.generate(key);
    const april = await b.as(key, '/api/v1/stats');
    assert.deepEqual(april.body, { licenses_generated_month: 1, licenses_remaining_month: 99, plan: 'Free', max_licenses_month: 100 });
    b.svc.clock.set('2026-05-01T00:00:00Z');
    const may = await b.as(key, '/api/v1/stats');
    assert.deepEqual(may.body, { licenses_generated_month: 0, licenses_remaining_month: 100, plan: 'Free', max_licenses_month: 100 });
  });
});

describe('monthly limit', () => {
  test('the last license of the month is granted, the next is 429 with the plan named', async () => {
    b.svc.clock.set('2026-06-10T00:00:00Z');
    const { key, accountId } = await b.svc.newKey({ plan: 'Free' });
    await setUsed(accountId, 99);
    assert.equal((await b.generate(key)).status, 201);
    const res = await b.generate(key);
    assert.equal(res.status, 429);
    assert.match(res.body.detail, /^Monthly license limit reached: the Free plan allows 100 licenses per month/);
    assert.equal((await b.as(key, '/api/v1/stats')).body.licenses_remaining_month, 0);
    assert.equal((await b.as(key, '/api/v1/licenses')).body.total, 1);
  });

  test('at limit - 1, fifty parallel generates give exactly one license', async () => {
    b.svc.clock.set('2026-06-10T00:00:00Z');
    const { key, accountId } = await b.svc.newKey({ plan: 'Free' });
    await setUsed(accountId, 99);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => b.generate(key, { end_customer_id: `p${i}` })));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 49);
    assert.equal((await b.as(key, '/api/v1/licenses')).body.total, 1);
    assert.equal((await b.as(key, '/api/v1/stats')).body.licenses_generated_month, 100);
  });
});

describe('authentication', () => {
  const routes: Array<[string, string, unknown?]> = [
    ['POST', '/api/v1/licenses/generate', { end_customer_id: 'x' }],
    ['POST', '/api/v1/licenses/validate', { license_key: 'LTC-0000-0000-0000-0000-0000-0000-0000-0000', end_customer_id: 'x' }],
    ['GET', '/api/v1/licenses'],
    ['GET', '/api/v1/licenses/LTC-0000-0000-0000-0000-0000-0000-0000-0000'],
    ['POST', '/api/v1/licenses/LTC-0000-0000-0000-0000-0000-0000-0000-0000/revoke', {}],
    ['GET', '/api/v1/revocations'],
    ['GET', '/api/v1/stats'],
    ['GET', '/api/v1/customers/me'],
  ];

  test('missing, unknown, revoked, expired, bearer-only and service-token keys are 401 on every route', async () => {
    const revoked = await b.svc.newKey();
    await revokeKey(b.svc.db, revoked.keyId);
    b.svc.clock.set(new Date());
    const expired = await b.svc.newKey({ expiresAt: new Date(Date.now() - 1000) });
    const token = await b.svc.newKey({ kind: 'service_token' });
    const valid = await b.svc.newKey();
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['unknown', { 'x-api-key': 'lic_00000000000000000000000000000000' }],
      ['revoked', { 'x-api-key': revoked.key }],
      ['expired', { 'x-api-key': expired.key }],
      ['service token', { 'x-api-key': token.key }],
    ];
    for (const [method, path, body] of routes) {
      for (const [name, headers] of cases) {
        const res = await call(`${b.svc.url}${path}`, { method, body, headers });
        assert.equal(res.status, 401, `${name} ${method} ${path}`);
        assert.deepEqual(res.body, { detail: 'Invalid or inactive API key' });
      }
      // A valid key sent as Bearer (variant A's header) is refused saying where B takes it.
      for (const auth of [`Bearer ${valid.key}`, 'Bearer lic_00000000000000000000000000000000']) {
        const res = await call(`${b.svc.url}${path}`, { method, body, headers: { authorization: auth } });
        assert.equal(res.status, 401, `bearer ${method} ${path}`);
        assert.deepEqual(res.body, { detail: 'Invalid or inactive API key: variant B takes the key in the X-API-Key header (X-API-Key: lic_...), not in Authorization: Bearer' });
      }
    }
  });

  test('authentication is checked before the body, so a bad body without a key is still 401', async () => {
    const res = await call(`${b.svc.url}/api/v1/licenses/generate`, { body: { features: 7 } });
    assert.equal(res.status, 401);
  });
});
