import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startLlm, type LlmTest } from './testing.ts';

let s: LlmTest;
before(async () => {
  s = await startLlm();
});
after(() => s.close());

test('an admin creates a tenant whose api_key is returned once and reaches only that tenant', async () => {
  const r = await s.req('/v1/tenants', s.admin, { body: { name: 'Acme Corp', tier: 'PRO', settings: { custom_system_prompt: 'Be brief.' } } });
  assert.equal(r.status, 201);
  assert.equal(r.body.slug, 'acme-corp');
  assert.equal(r.body.tier, 'pro');
  assert.match(r.body.api_key, /^lq_/);
  assert.equal(r.body.settings.custom_system_prompt, 'Be brief.');
  assert.equal(r.body.settings.default_model, 'lattice-tiny');
  const got = await s.req(`/v1/tenants/${r.body.id}`, r.body.api_key);
  assert.equal(got.status, 200);
  assert.equal(got.body.api_key, undefined);
  assert.deepEqual(Object.keys(got.body).sort(), ['created_at', 'id', 'name', 'settings', 'slug', 'tier', 'updated_at']);
  const dup = await s.req('/v1/tenants', s.admin, { body: { name: 'Acme Corp' } });
  assert.equal(dup.status, 400);
  assert.equal(dup.body.error.code, 'INVALID_REQUEST');
});

test('tenants list with limit, offset and tier; tenant keys cannot list, create, patch or delete', async () => {
  const a = await s.tenant({ tier: 'business' });
  await s.tenant({ tier: 'business' });
  const page = await s.req('/v1/tenants?limit=1&offset=0&tier=business', s.admin);
  assert.equal(page.status, 200);
  assert.equal(page.body.data.length, 1);
  assert.equal(page.body.limit, 1);
  assert.ok(page.body.total >= 2);
  const all = await s.req('/v1/tenants', s.admin);
  assert.equal(all.body.limit, 50);
  for (const [method, path, body] of [
    ['GET', '/v1/tenants', undefined],
    ['POST', '/v1/tenants', { name: 'x' }],
    ['PATCH', `/v1/tenants/${a.id}`, { tier: 'enterprise' }],
    ['DELETE', `/v1/tenants/${a.id}`, undefined],
    ['GET', '/v1/admin/usage', undefined],
  ] as const) {
    const r = await s.req(path, a.key, { method, ...(body ? { body } : {}) });
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.body.error.code, 'FORBIDDEN');
    assert.equal(r.body.error.retry_after, null);
    assert.match(r.body.request_id, /\S/);
  }
});

test('patching a tenant and its settings changes only what was sent', async () => {
  const a = await s.tenant();
  const p = await s.req(`/v1/tenants/${a.id}`, s.admin, { method: 'PATCH', body: { name: 'Renamed', tier: 'free' } });
  assert.equal(p.status, 200);
  assert.equal(p.body.name, 'Renamed');
  assert.equal(p.body.tier, 'free');
  const set = await s.req(`/v1/tenants/${a.id}/settings`, a.key, { method: 'PATCH', body: { enable_rerank: true, rerank_tier: 'quantum_cpu', custom_system_prompt: 'Answer in one line.' } });
  assert.equal(set.status, 200);
  assert.equal(set.body.enable_rerank, true);
  assert.equal(set.body.max_tokens_per_request, 512);
  const read = await s.req(`/v1/tenants/${a.id}/settings`, a.key);
  assert.equal(read.body.custom_system_prompt, 'Answer in one line.');
  const bad = await s.req(`/v1/tenants/${a.id}/settings`, a.key, { method: 'PATCH', body: { default_model: 'nope' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'MODEL_NOT_FOUND');
  const badTier = await s.req(`/v1/tenants/${a.id}/settings`, a.key, { method: 'PATCH', body: { rerank_tier: 'magic' } });
  assert.equal(badTier.body.error.code, 'INVALID_REQUEST');
});

test('deleting a tenant stops its key at once and removes its data', async () => {
  const a = await s.tenant();
  const fb = await s.req(`/v1/tenants/${a.id}/feedback`, a.key, { body: { type: 'thumbs_up' } });
  assert.equal(fb.status, 201);
  const d = await s.req(`/v1/tenants/${a.id}`, s.admin, { method: 'DELETE' });
  assert.deepEqual(d.body, { id: a.id, deleted: true });
  const after = await s.req('/v1/models', a.key);
  assert.equal(after.status, 401);
  assert.equal(after.body.error.code, 'UNAUTHORIZED');
  assert.equal((await s.req(`/v1/tenants/${a.id}`, s.admin)).body.error.code, 'TENANT_NOT_FOUND');
  const rows = await s.t.db.query('SELECT 1 FROM llm_feedback WHERE tenant_id = $1', [a.id]);
  assert.equal(rows.length, 0);
  // Its usage rows too, and the feedback request's count, still in memory at the delete, does
  // not write one back once the batch's second has passed.
  await new Promise((r) => setTimeout(r, 1_200));
  assert.equal((await s.t.db.query('SELECT 1 FROM llm_usage_daily WHERE subject = $1', [a.id])).length, 0);
});

test('X-Tenant-ID: a tenant key may name only itself; an admin key picks a tenant of its account', async () => {
  const a = await s.tenant();
  const b = await s.tenant();
  const own = await s.req('/v1/models', a.key, { headers: { 'x-tenant-id': a.slug } });
  assert.equal(own.status, 200);
  const other = await s.req('/v1/models', a.key, { headers: { 'x-tenant-id': b.slug } });
  assert.equal(other.status, 403);
  assert.equal(other.body.error.code, 'FORBIDDEN');
  const viaAdmin = await s.req('/v1/rerank', s.admin, { headers: { 'x-tenant-id': b.slug }, body: { query: 'q', documents: ['q'] } });
  assert.equal(viaAdmin.status, 200);
  const unknown = await s.req('/v1/rerank', s.admin, { headers: { 'x-tenant-id': 'nobody' }, body: { query: 'q', documents: ['q'] } });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'TENANT_NOT_FOUND');
  // Another account's admin cannot pick this account's tenant.
  const { key: stranger } = await s.t.newKey({ role: 'admin' });
  const far = await s.req('/v1/rerank', stranger, { headers: { 'x-tenant-id': a.slug }, body: { query: 'q', documents: ['q'] } });
  assert.equal(far.body.error.code, 'TENANT_NOT_FOUND');
  // A plain key of the service is neither admin nor tenant.
  const { key: member } = await s.t.newKey();
  assert.equal((await s.req('/v1/models', member)).body.error.code, 'FORBIDDEN');
});

test('bad input answers in the Q error shape: no key, malformed JSON, wrong types, unknown routes', async () => {
  const none = await s.req('/v1/models', 'lq_nope_nope_nope');
  assert.equal(none.status, 401);
  assert.deepEqual(Object.keys(none.body).sort(), ['error', 'request_id']);
  const json = await s.req('/v1/tenants', s.admin, { rawBody: '{"name":' });
  assert.equal(json.status, 400);
  assert.equal(json.body.error.code, 'INVALID_REQUEST');
  const types = await s.req('/v1/tenants', s.admin, { body: { name: 42 } });
  assert.equal(types.body.error.code, 'INVALID_REQUEST');
  const limit = await s.req('/v1/tenants?limit=0', s.admin);
  assert.equal(limit.body.error.code, 'INVALID_REQUEST');
  const route = await s.req('/v1/nothing', s.admin);
  assert.equal(route.status, 404);
  assert.equal(route.body.error.code, 'NOT_FOUND');
});

test('the key is checked before the body: without one, a bad body is 401, not a 400 describing the schema', async () => {
  for (const [path, body] of [
    ['/v1/tenants', { name: 'x', bogus: 1 }],
    ['/v1/chat/completions', { model: 5 }],
    ['/v1/embeddings', {}],
  ] as const) {
    const r = await s.req(path, 'lq_nope_nope_nope', { body });
    assert.equal(r.status, 401, path);
    assert.equal(r.body.error.code, 'UNAUTHORIZED');
  }
});

test('requests over the tier’s per-minute limit get 429 RATE_LIMITED with retry_after', async () => {
  const a = await s.tenant({ tier: 'free' });
  const codes: number[] = [];
  for (let i = 0; i < 21; i++) codes.push((await s.req('/v1/models', a.key)).status);
  assert.deepEqual(codes.slice(0, 20), new Array(20).fill(200));
  const r = await s.req('/v1/models', a.key);
  assert.equal(r.status, 429);
  assert.equal(r.body.error.code, 'RATE_LIMITED');
  assert.ok(r.body.error.retry_after >= 1 && r.body.error.retry_after <= 60);
  assert.equal(r.headers.get('retry-after'), String(r.body.error.retry_after));
});

test('admin usage reports requests and tokens per tenant', async () => {
  const a = await s.tenant({ tier: 'pro' });
  await s.req('/v1/embeddings', a.key, { body: { input: ['boundary layer flow over a plate'] } });
  const u = await s.req('/v1/admin/usage', s.admin);
  assert.equal(u.status, 200);
  const row = u.body.data.find((d: { tenant_id: string }) => d.tenant_id === a.id);
  assert.equal(row.requests, 1);
  assert.ok(row.tokens > 0);
  assert.deepEqual(row.limits, { requests_per_minute: 100, tokens_per_day: 100000 });
});

test('health checks the database, inference and the quantum simulator for real', async () => {
  const h = await s.req('/health', '');
  assert.equal(h.status, 200);
  assert.equal(h.body.status, 'healthy');
  assert.equal(h.body.version, '2.1.0');
  for (const c of ['api', 'database', 'inference', 'quantum']) assert.equal(h.body.components[c].status, 'ok', c);
  assert.match(h.body.components.quantum.detail, /kernel/);
});
