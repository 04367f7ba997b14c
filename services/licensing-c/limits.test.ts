/** Variant C plan limits: the monthly allowance (429 with a way out, exact under concurrency), request rates, and auth. */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { revokeKey } from '../../platform/identity/keys.ts';
import { call } from '../../platform/testing/harness.ts';
import { C_PLANS } from './plans.ts';
import { startC, type CTest } from './testing.ts';

let c: CTest;
before(async () => {
  c = await startC();
});
after(() => c.svc.close());

async function setUsed(accountId: string, value: number): Promise<void> {
  await c.svc.db.query(
    `INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ($1, 'licensing-c', 'licenses_generated', $2, $3)
     ON CONFLICT (account_id, service, counter, period) DO UPDATE SET value = EXCLUDED.value`,
    [accountId, c.svc.clock.now().toISOString().slice(0, 7), value],
  );
}

describe('monthly limit', () => {
  test('the plans are those of the contract', () => {
    assert.deepEqual(
      C_PLANS.map((p) => [p.name, p.monthlyLimit, p.requestsPerSecond]),
      [['starter', 100, 100], ['professional', 1000, 500], ['enterprise', 999_999_999, 2000]],
    );
  });

  test('past the limit generate is 429 with {detail} suggesting an upgrade or the next month', async () => {
    c.svc.clock.set('2026-02-20T00:00:00Z');
    const { key, id } = await c.register('starter');
    await setUsed(id, 99);
    assert.equal((await c.generate(key)).status, 200);
    const res = await c.generate(key);
    assert.equal(res.status, 429);
    assert.deepEqual(Object.keys(res.body), ['detail']);
    assert.match(res.body.detail, /limit reached/);
    assert.match(res.body.detail, /starter plan allows 100 licenses per month/);
    assert.match(res.body.detail, /Upgrade your plan/);
    assert.match(res.body.detail, /next month \(the count resets on 2026-03-01\)/);
    assert.equal((await c.as(key, '/api/v1/stats')).body.total_licenses, 1);
    c.svc.clock.set('2026-03-01T00:00:00Z');
    assert.equal((await c.generate(key)).status, 200, 'a new month brings a new allowance');
  });

  test('at limit - 1, fifty parallel generates give exactly one license', async () => {
    c.svc.clock.set('2026-02-20T00:00:00Z');
    const { key, id } = await c.register('professional');
    await setUsed(id, 999);
    const statuses = (await Promise.all(Array.from({ length: 50 }, (_, i) => c.generate(key, { end_customer_id: `p${i}` })))).map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 49);
    const stats = await c.as(key, '/api/v1/stats');
    assert.equal(stats.body.total_licenses, 1);
    assert.equal(stats.body.this_month, 1000);
  });

  test('enterprise is not stopped by a count far beyond the other plans', async () => {
    const { key, id } = await c.register('enterprise');
    await setUsed(id, 250_000);
    assert.equal((await c.generate(key)).status, 200);
  });
});

describe('request rate', () => {
  test('a starter key gets no more than 100 requests per second; the rest are {detail} 429', async () => {
    const { key } = await c.register('starter');
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 250 }, () => c.as(key, '/api/v1/customers/me')));
    const ended = Date.now();
    // Seconds are fixed one-second windows: at most 100 in each window the burst touched.
    const windows = Math.floor(ended / 1000) - Math.floor(started / 1000) + 1;
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    assert.equal(ok + limited.length, 250);
    assert.ok(ok <= 100 * windows, `${ok} successes over ${windows} one-second windows`);
    if (windows < 3) assert.ok(limited.length > 0);
    for (const r of limited) assert.deepEqual(Object.keys(r.body), ['detail']);
  });
});

describe('authentication', () => {
  test('missing, unknown, revoked, expired and other-service keys are 401 on every keyed route', async () => {
    const revoked = await c.svc.newKey();
    await revokeKey(c.svc.db, revoked.keyId);
    const expired = await c.svc.newKey({ expiresAt: new Date(Date.now() - 1000) });
    const registered = await c.register();
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['unknown', { authorization: 'Bearer lcc_00000000000000000000000000000000' }],
      ['revoked', { authorization: `Bearer ${revoked.key}` }],
      ['expired', { authorization: `Bearer ${expired.key}` }],
      ['not bearer', { 'x-api-key': registered.key }],
      ['malformed header', { authorization: `Token ${registered.key}` }],
    ];
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/v1/customers/me'],
      ['POST', '/api/v1/licenses/generate', { end_customer_id: 'x', features: [] }],
      ['GET', '/api/v1/stats'],
    ];
    for (const [method, path, body] of routes) {
      for (const [name, headers] of cases) {
        const res = await call(`${c.svc.url}${path}`, { method, body, headers });
        assert.equal(res.status, 401, `${name} ${path}`);
        assert.deepEqual(res.body, { detail: 'Invalid or missing API key' });
      }
    }
  });
});
