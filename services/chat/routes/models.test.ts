import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call } from '../../../platform/testing/harness.ts';
import { startChat, type ChatTest } from '../testing.ts';

let chat: ChatTest;
before(async () => {
  chat = await startChat();
});
after(() => chat.close());

test('the catalog lists the six models of the spec without sign-in, with exactly its fields', async () => {
  const res = await call(`${chat.url}/api/models`);
  assert.equal(res.status, 200);
  assert.equal(res.body.length, 6);
  for (const m of res.body) {
    assert.deepEqual(Object.keys(m).sort(), ['contextWindow', 'description', 'id', 'inputCost', 'name', 'outputCost']);
    assert.match(m.id, /^lattice:[a-z-]+$/);
  }
  const rows = res.body.map((m: any) => [m.contextWindow, m.inputCost, m.outputCost]);
  assert.deepEqual(rows, [
    [128000, 0.1, 0.4],
    [256000, 0.4, 1.2],
    [131000, 0.35, 1.4],
    [131000, 0.1, 0.4],
    [131000, 0.75, 3.0],
    [200000, 3.5, 14.0],
  ]);
  assert.equal(res.body[0].id, 'lattice:compact');
});

test('health, openapi.json and docs describe the chat routes', async () => {
  assert.deepEqual((await call(`${chat.url}/health`)).body, { status: 'ok' });
  const spec = (await call(`${chat.url}/openapi.json`)).body;
  for (const path of ['/api/models', '/api/auth/login', '/api/auth/logout', '/api/auth/me', '/api/usage', '/api/conversations', '/api/conversations/{id}', '/api/conversations/{id}/messages']) {
    assert.ok(spec.paths[path], `${path} is documented`);
  }
  assert.equal(spec.paths['/'], undefined, 'the web page is not an API route');
  assert.equal((await fetch(`${chat.url}/docs`)).status, 200);
  assert.equal((await fetch(`${chat.url}/redoc`)).status, 200);
});

test('unknown routes answer 404 in the chat error shape', async () => {
  const res = await call(`${chat.url}/api/nothing`);
  assert.equal(res.status, 404);
  assert.equal(res.body.error.type, 'not_found_error');
  assert.equal(typeof res.body.error.message, 'string');
});
