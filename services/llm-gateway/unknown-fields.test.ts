/**
 * Unknown fields (variant P): OpenAI's documented chat parameters are accepted and dropped
 * (spec rule 5); a field OpenAI does not know either is refused as OpenAI refuses it, and the
 * console routes refuse fields they do not take.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getBalance } from '../../platform/billing/index.ts';
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

const hello = { model: 'fast', messages: [{ role: 'user', content: 'hello there' }] };
const chat = (key: string, body: unknown) => call(`${gw.url}/api/v1/chat/completions`, { body, headers: { authorization: `Bearer ${key}` } });

test('a field OpenAI does not know is refused with 400 invalid_request_error "Unrecognized request argument supplied", before any model runs', async () => {
  const ws = await gw.workspace(1);
  up.bodies.length = 0;
  for (const field of ['bogus', 'max_token', 'temprature']) {
    const res = await chat(ws.key, { ...hello, [field]: 1 });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, { error: { message: `Unrecognized request argument supplied: ${field}`, type: 'invalid_request_error' } });
    assert.equal(res.headers.get('x-service-request-id'), null, 'refused before the model gateway');
  }
  assert.equal(up.bodies.length, 0);
  await gw.drain();
  assert.equal((await getBalance(gw.db, ws.accountId)).availableMicros, 1_000_000, 'nothing charged');
});

test('OpenAI parameters that this API drops are still accepted', async () => {
  const ws = await gw.workspace(1);
  const res = await chat(ws.key, { ...hello, max_completion_tokens: 3, stream_options: { include_usage: true }, metadata: { a: 'b' }, store: false, parallel_tool_calls: false });
  assert.equal(res.status, 200, JSON.stringify(res.body));
});

test('the console routes refuse fields they do not take, in the gateway shape', async () => {
  const { cookie, email, password } = await gw.signIn();
  const login = await call(`${gw.url}/api/auth/login`, { body: { email, password, remember_me: true } });
  assert.equal(login.status, 400);
  assert.equal(login.body.error.type, 'invalid_request_error');
  assert.match(login.body.error.message, /body\.remember_me is not a known field; known fields: email, password/);
  const logout = await call(`${gw.url}/api/auth/logout`, { body: { everywhere: true }, headers: { cookie } });
  assert.equal(logout.status, 400);
  assert.match(logout.body.error.message, /body\.everywhere is not a known field; this route takes no body/);
  const create = await call(`${gw.url}/api/api-keys`, { body: { name: 'k', spend_limit: 5 }, headers: { cookie } });
  assert.equal(create.status, 400, JSON.stringify(create.body));
  assert.match(create.body.error.message, /body\.spend_limit is not a known field; known fields: name, scopes/);
  const made = await call(`${gw.url}/api/api-keys`, { body: { name: 'k' }, headers: { cookie } });
  assert.equal(made.status, 201);
  const patch = await call(`${gw.url}/api/api-keys/${made.body.id}`, { method: 'PATCH', body: { spend_limit: 5 }, headers: { cookie } });
  assert.equal(patch.status, 400, JSON.stringify(patch.body));
  assert.match(patch.body.error.message, /body\.spend_limit is not a known field \(did you mean spendLimit\?\)/);
  const keys = await call(`${gw.url}/api/api-keys`, { headers: { cookie } });
  assert.equal(keys.body.data.find((k: { id: string }) => k.id === made.body.id).spendLimit, null, 'the refused change changed nothing');
  const usage = await call(`${gw.url}/api/usage?dayz=7`, { headers: { cookie } });
  assert.equal(usage.status, 400);
  assert.match(usage.body.error.message, /querystring\.dayz is not a known field \(did you mean days\?\)/);
});
