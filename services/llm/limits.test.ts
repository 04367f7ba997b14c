import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DAY, MINUTE } from '../../platform/limits/windows.ts';
import { OPERATOR_RPM, QLimits, requestsSubject, tenantBudget, tokensSubject } from './limits.ts';
import type { Caller } from './caller.ts';
import { startLlm, type LlmTest } from './testing.ts';
import type { TenantRow } from './tenants.ts';

let s: LlmTest;
before(async () => {
  s = await startLlm();
  // One fixed minute: the counts below never straddle a window boundary.
  s.t.clock.set(new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1_000));
});
after(() => s.close());

const embed = { model: 'classic-embed', input: 'boundary layer flow' };

test('an admin key on the free plan manages tenants without a tenant tier’s 20 requests per minute', async () => {
  const { key: admin } = await s.t.newKey({ role: 'admin' });
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) {
    const c = await s.req('/v1/tenants', admin, { body: { name: `Ops ${i}`, tier: 'free' } });
    statuses.push(c.status);
    statuses.push((await s.req(`/v1/tenants/${c.body.id}`, admin)).status);
    statuses.push((await s.req(`/v1/tenants/${c.body.id}/settings`, admin, { method: 'PATCH', body: { enable_rerank: false } })).status);
  }
  for (let i = 0; i < 4; i++) {
    statuses.push((await s.req('/v1/tenants', admin)).status);
    statuses.push((await s.req('/v1/admin/usage', admin)).status);
    statuses.push((await s.req('/v1/webhooks', admin)).status);
    statuses.push((await s.req('/v1/models', admin)).status);
  }
  assert.equal(statuses.length, 40);
  assert.deepEqual(
    statuses.filter((x) => x >= 300),
    [],
  );
});

test('an admin key acting for a tenant spends that tenant’s tier, the same budget as the tenant’s own key', async () => {
  const { key: admin } = await s.t.newKey({ role: 'admin', plan: 'enterprise' });
  const created = await s.req('/v1/tenants', admin, { body: { name: 'Small shop', tier: 'free' } });
  assert.equal(created.status, 201);
  const { slug, id, api_key: tenantKey } = created.body;
  // Twenty requests of the tenant's: feedback on its path and embeddings under X-Tenant-ID.
  for (let i = 0; i < 10; i++) {
    assert.equal((await s.req(`/v1/tenants/${slug}/feedback`, admin, { body: { type: 'thumbs_up' } })).status, 201);
  }
  for (let i = 0; i < 9; i++) {
    assert.equal((await s.req('/v1/embeddings', admin, { headers: { 'x-tenant-id': slug }, body: embed })).status, 200);
  }
  assert.equal((await s.req('/v1/embeddings', tenantKey, { body: embed })).status, 200);
  const over = await s.req('/v1/embeddings', admin, { headers: { 'x-tenant-id': slug }, body: embed });
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, 'RATE_LIMITED');
  assert.match(over.body.error.message, /20 requests per minute reached for tier free/);
  const feedback = await s.req(`/v1/tenants/${id}/feedback`, admin, { body: { type: 'thumbs_up' } });
  assert.equal(feedback.status, 429);
  assert.equal((await s.req('/v1/embeddings', tenantKey, { body: embed })).status, 429);
  // The operator's own work is not the tenant's: it goes on.
  assert.equal((await s.req(`/v1/tenants/${id}`, admin)).status, 200);
  assert.equal((await s.req('/v1/admin/usage', admin)).status, 200);
  // Once the minute is over the tenant is served again.
  s.t.clock.advance(60_000);
  assert.equal((await s.req('/v1/embeddings', admin, { headers: { 'x-tenant-id': slug }, body: embed })).status, 200);
  s.t.clock.advance(-60_000);
});

test('the operator limit is counted across the cluster for all admin keys of the account', async () => {
  const { key: admin, accountId } = await s.t.newKey({ role: 'admin' });
  const { key: second } = await s.t.newKey({ role: 'admin', accountId });
  const tenant = await s.req('/v1/tenants', admin, { body: { name: 'Unaffected', tier: 'free' } });
  assert.equal(tenant.status, 201);
  const window = Math.floor(s.t.clock.now().getTime() / MINUTE) * MINUTE;
  // Other processes of the cluster already took the minute's budget but one (platform/limits' table).
  await s.t.db.query(
    `INSERT INTO limit_windows (subject, window_ms, window_start, taken, granted) VALUES ($1, $2, $3, $4, 0)
     ON CONFLICT (subject, window_ms, window_start) DO UPDATE SET taken = EXCLUDED.taken`,
    [requestsSubject(`operator:${accountId}`), MINUTE, window, OPERATOR_RPM - 1],
  );
  assert.equal((await s.req('/v1/tenants', admin)).status, 200);
  const over = await s.req('/v1/tenants', second);
  assert.equal(over.status, 429);
  assert.equal(over.body.error.code, 'RATE_LIMITED');
  assert.match(over.body.error.message, new RegExp(`${OPERATOR_RPM} requests per minute reached for the account's admin keys \\(operator limit\\)`));
  assert.ok(over.body.error.retry_after >= 1 && over.body.error.retry_after <= 60);
  // The account's tenant keeps its own budget.
  assert.equal((await s.req('/v1/models', tenant.body.api_key)).status, 200);
});

test("tokens one process charged count in another's day: refused there once its count is read, and not before the day's budget is spent", async () => {
  const { key: admin } = await s.t.newKey({ role: 'admin' });
  const created = await s.req('/v1/tenants', admin, { body: { name: 'Two processes', tier: 'free' } });
  assert.equal(created.status, 201);
  // What the counters read of a tenant: its id and tier.
  const tenant = { id: created.body.id, tier: 'free' } as TenantRow;
  const budget = tenantBudget(tenant);
  assert.equal(budget.tokensPerDay, 10_000);
  const caller: Caller = { accountId: created.body.account_id, keyId: '', admin: false, plan: null, tenant };
  // Two processes of a cluster: each its own counters over the one store.
  const here = new QLimits(s.t.db);
  const there = new QLimits(s.t.db);
  try {
    const now = s.t.clock.now();
    await there.admit(budget, now, true);
    here.chargeTokens(caller, now, 9_999);
    // The charging process counts its own tokens at once; one token is left.
    await here.admit(budget, now, true);
    here.chargeTokens(caller, now, 1);
    await assert.rejects(here.admit(budget, now, true), /Daily limit of 10000 tokens reached for tier free/);
    // A request that needs no tokens is still served.
    await here.admit(budget, now, false);
    // The other process, once the batch is written and its copy is older than 250 ms, refuses too.
    await here.close();
    await new Promise((r) => setTimeout(r, 300));
    await assert.rejects(there.admit(budget, now, true), /Daily limit of 10000 tokens/);
    const [row] = await s.t.db.query<{ taken: string }>('SELECT taken FROM limit_windows WHERE subject = $1 AND window_ms = $2 AND window_start = $3', [
      tokensSubject(tenant.id),
      DAY,
      Math.floor(now.getTime() / DAY) * DAY,
    ]);
    assert.equal(Number(row?.taken), 10_000);
    // The admin report counts what both processes admitted and charged, once written.
    await there.close();
    const usage = await s.req('/v1/admin/usage?days=1', admin);
    const mine = usage.body.data.find((d: { tenant_id: string }) => d.tenant_id === tenant.id);
    assert.deepEqual(mine.today, { requests: 3, tokens: 10_000 });
  } finally {
    await here.close();
    await there.close();
  }
});

test("requests refused for the day's tokens are not counted in the minute, nor in the report", async () => {
  const { key: admin } = await s.t.newKey({ role: 'admin' });
  const created = await s.req('/v1/tenants', admin, { body: { name: 'Spent day', tier: 'free' } });
  assert.equal(created.status, 201);
  const budget = tenantBudget({ id: created.body.id, tier: 'free' } as TenantRow);
  const limits = new QLimits(s.t.db);
  try {
    const now = s.t.clock.now();
    await s.t.db.query('INSERT INTO limit_windows (subject, window_ms, window_start, taken, granted) VALUES ($1, $2, $3, 10000, 0)', [
      tokensSubject(created.body.id),
      DAY,
      Math.floor(now.getTime() / DAY) * DAY,
    ]);
    for (let i = 0; i < 30; i++) await assert.rejects(limits.admit(budget, now, true), /Daily limit of 10000 tokens/);
    // The minute's 20 are all still there for requests that spend no tokens; the 21st is refused.
    for (let i = 0; i < 20; i++) await limits.admit(budget, now, false);
    await assert.rejects(limits.admit(budget, now, false), /20 requests per minute reached for tier free/);
    await limits.flushUsage();
    const [row] = await s.t.db.query<{ requests: string }>('SELECT requests FROM llm_usage_daily WHERE subject = $1', [created.body.id]);
    assert.equal(Number(row?.requests), 20);
  } finally {
    await limits.close();
  }
});
