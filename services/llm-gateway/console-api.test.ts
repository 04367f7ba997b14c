import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

let gw: GatewayUnderTest;
let up: FakeUpstream;
before(async () => {
  up = await startFakeUpstream();
  gw = await startGateway({ models: upstreamModels(up.url) });
});
after(async () => {
  await gw.close();
  await up.close();
});

const api = (path: string, cookie: string | null, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  call(`${gw.url}${path}`, { ...init, headers: { ...(cookie ? { cookie } : {}), ...init.headers } });

test('sign-in sets an HttpOnly SameSite=Strict cookie; me answers the user; logout ends the session', async () => {
  const { cookie, email, accountId, password } = await gw.signIn();
  const me = await api('/api/auth/me', cookie);
  assert.equal(me.status, 200);
  assert.equal(me.body.user.email, email);
  assert.equal(me.body.workspace.id, accountId);
  const again = await call(`${gw.url}/api/auth/login`, { body: { email: email.toUpperCase(), password } });
  assert.equal(again.status, 200);
  const setCookie = again.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /^lattice_console=[A-Za-z0-9]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
  const wrong = await call(`${gw.url}/api/auth/login`, { body: { email, password: 'wrong password' } });
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.body, { error: { message: 'Invalid email or password', type: 'authentication_error' } });
  assert.equal(wrong.headers.get('set-cookie'), null);
  const unknown = await call(`${gw.url}/api/auth/login`, { body: { email: 'nobody@example.test', password } });
  assert.equal(unknown.status, 401);
  const missing = await call(`${gw.url}/api/auth/login`, { body: { email } });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error.type, 'invalid_request_error');
  const out = await api('/api/auth/logout', cookie, { method: 'POST', body: {} });
  assert.equal(out.status, 200);
  assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
  assert.deepEqual((await api('/api/auth/me', cookie)).body, { error: { message: 'Not authenticated', type: 'authentication_error' } });
});

test('keys: create shows the secret once, list never does, patch updates name and limits, delete revokes', async () => {
  const { cookie, accountId } = await gw.signIn();
  await gw.db.query('INSERT INTO billing_balances (account_id, available_micros) VALUES ($1, 1000000)', [accountId]);
  const created = await api('/api/api-keys', cookie, { body: { name: 'production' } });
  assert.equal(created.status, 201);
  assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'id', 'key', 'name']);
  assert.match(created.body.key, /^sk-lat_[A-Za-z0-9]{32}$/);
  const list = await api('/api/api-keys', cookie);
  assert.equal(list.status, 200);
  assert.equal(list.body.data.length, 1);
  const listed = list.body.data[0];
  assert.deepEqual(listed, {
    id: created.body.id,
    name: 'production',
    createdAt: created.body.createdAt,
    expiresAt: null,
    lastUsedAt: null,
    scopes: ['chat:write', 'models:read'],
    spendLimit: null,
    rpmLimit: null,
    tpmLimit: null,
  });
  assert.ok(!JSON.stringify(list.body).includes(created.body.key));
  // The key works, and its use shows in lastUsedAt.
  const used = await call(`${gw.url}/api/v1/chat/completions`, { body: { model: 'fast', messages: [{ role: 'user', content: 'hi' }] }, headers: { authorization: `Bearer ${created.body.key}` } });
  assert.equal(used.status, 200);
  assert.ok((await api('/api/api-keys', cookie)).body.data[0].lastUsedAt);
  const patched = await api(`/api/api-keys/${created.body.id}`, cookie, { method: 'PATCH', body: { name: 'prod', spendLimit: 12.5, rpmLimit: 60, tpmLimit: 100000 } });
  assert.equal(patched.status, 200);
  assert.deepEqual([patched.body.name, patched.body.spendLimit, patched.body.rpmLimit, patched.body.tpmLimit], ['prod', 12.5, 60, 100000]);
  const cleared = await api(`/api/api-keys/${created.body.id}`, cookie, { method: 'PATCH', body: { rpmLimit: null } });
  assert.deepEqual([cleared.body.name, cleared.body.spendLimit, cleared.body.rpmLimit], ['prod', 12.5, null]);
  for (const body of [{ name: '' }, { name: 5 }, { spendLimit: -1 }, { spendLimit: 'ten' }, { rpmLimit: 1.5 }, { tpmLimit: 1e12 }]) {
    const res = await api(`/api/api-keys/${created.body.id}`, cookie, { method: 'PATCH', body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.type, 'invalid_request_error');
  }
  const revoked = await api(`/api/api-keys/${created.body.id}`, cookie, { method: 'DELETE' });
  assert.deepEqual(revoked.body, { id: created.body.id, revoked: true });
  assert.deepEqual((await api('/api/api-keys', cookie)).body, { data: [] });
  const after = await call(`${gw.url}/api/v1/models`, { headers: { authorization: `Bearer ${created.body.key}` } });
  assert.equal(after.status, 401);
  assert.equal(after.body.error.message, 'Invalid or expired API key');
  assert.deepEqual((await api(`/api/api-keys/${created.body.id}`, cookie, { method: 'DELETE' })).body, { error: { message: 'API key not found', type: 'not_found_error' } });
});

test("another workspace's keys are 404 API key not found; without a session, or with an API key, 401 Not authenticated", async () => {
  const alice = await gw.signIn();
  const bob = await gw.signIn();
  const key = await api('/api/api-keys', alice.cookie, { body: { name: 'alice key' } });
  for (const [method, body] of [['PATCH', { name: 'stolen' }], ['DELETE', undefined]] as const) {
    const res = await api(`/api/api-keys/${key.body.id}`, bob.cookie, { method, ...(body ? { body } : {}) });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: { message: 'API key not found', type: 'not_found_error' } });
  }
  assert.equal((await api('/api/api-keys/key_doesnotexist', alice.cookie, { method: 'PATCH', body: { name: 'x' } })).status, 404);
  assert.deepEqual((await api('/api/api-keys', bob.cookie)).body, { data: [] });
  const bearer = { authorization: `Bearer ${key.body.key}` };
  for (const [method, path] of [['GET', '/api/api-keys'], ['POST', '/api/api-keys'], ['GET', '/api/auth/me'], ['GET', '/api/usage'], ['DELETE', `/api/api-keys/${key.body.id}`]] as const) {
    const res = await api(path, null, { method, headers: bearer, ...(method === 'POST' ? { body: { name: 'by key' } } : {}) });
    assert.equal(res.status, 401, `${method} ${path}`);
    assert.deepEqual(res.body, { error: { message: 'Not authenticated', type: 'authentication_error' } });
  }
  assert.equal((await api('/api/api-keys', 'lattice_console=forged')).status, 401);
  assert.equal((await api('/api/api-keys', alice.cookie)).body.data[0].name, 'alice key');
});

test('usage shows the balance and the spend per key and per day', async () => {
  const { cookie, accountId } = await gw.signIn();
  await gw.db.query('INSERT INTO billing_balances (account_id, available_micros) VALUES ($1, 2000000)', [accountId]);
  const a = await api('/api/api-keys', cookie, { body: { name: 'a' } });
  const b = await api('/api/api-keys', cookie, { body: { name: 'b' } });
  const ask = (key: string, max: number) => call(`${gw.url}/api/v1/chat/completions`, { body: { model: 'fast', messages: [{ role: 'user', content: 'hi' }], max_tokens: max }, headers: { authorization: `Bearer ${key}` } });
  await ask(a.body.key, 1);
  await ask(a.body.key, 2);
  await ask(b.body.key, 5);
  const usage = await api('/api/usage?days=7', cookie);
  assert.equal(usage.status, 200);
  assert.equal(usage.body.days.length, 7);
  const today = usage.body.days.at(-1);
  assert.equal(today.date, new Date().toISOString().slice(0, 10));
  // prompt 4 tokens at 1, output at 2: (4+2) + (4+4) + (4+10)
  assert.deepEqual([today.requests, today.cost_usd], [3, 0.000028]);
  // Most spent first; equal spend in name order.
  assert.deepEqual(usage.body.keys.map((k: { name: string; cost_usd: number; requests: number }) => [k.name, k.cost_usd, k.requests]), [['a', 0.000014, 2], ['b', 0.000014, 1]]);
  assert.deepEqual(usage.body.balance, { available_usd: 2 - 0.000028, held_usd: 0 });
  assert.equal((await api('/api/usage?days=0', cookie)).status, 400);
});

test('the documentation routes describe the gateway', async () => {
  const spec = await call(`${gw.url}/openapi.json`);
  assert.equal(spec.status, 200);
  for (const path of ['/api/v1/chat/completions', '/api/v1/models', '/api/api-keys', '/api/api-keys/{id}', '/api/auth/login', '/api/usage']) assert.ok(spec.body.paths[path], path);
  assert.equal((await call(`${gw.url}/health`)).body.status, 'ok');
  assert.equal((await fetch(`${gw.url}/docs`)).status, 200);
});
