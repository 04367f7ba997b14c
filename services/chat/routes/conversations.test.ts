import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startChat, type ChatTest } from '../testing.ts';

let chat: ChatTest;
before(async () => {
  chat = await startChat();
});
after(() => chat.close());

test('a new conversation uses the compact model unless another is picked', async () => {
  const user = await chat.newUser();
  const plain = await chat.as(user, '/api/conversations', { method: 'POST' });
  assert.equal(plain.status, 201);
  assert.equal(plain.body.model, 'lattice:compact');
  assert.equal(plain.body.title, 'New chat');
  const picked = await chat.as(user, '/api/conversations', { body: { model: 'lattice:reasoning', title: 'Maths' } });
  assert.equal(picked.status, 201);
  assert.equal(picked.body.model, 'lattice:reasoning');
  assert.equal(picked.body.title, 'Maths');
});

test('conversations list most recent first, read back with their messages, rename and change model', async () => {
  const user = await chat.newUser();
  const a = (await chat.as(user, '/api/conversations', { body: { title: 'first' } })).body;
  chat.clock.set(new Date(Date.now() + 1000));
  const b = (await chat.as(user, '/api/conversations', { body: { title: 'second' } })).body;
  const list = await chat.as(user, '/api/conversations');
  assert.deepEqual(list.body.data.map((c: any) => c.id), [b.id, a.id]);

  const read = await chat.as(user, `/api/conversations/${a.id}`);
  assert.equal(read.status, 200);
  assert.deepEqual(read.body.messages, []);

  chat.clock.set(new Date(Date.now() + 2000));
  const patched = await chat.as(user, `/api/conversations/${a.id}`, { method: 'PATCH', body: { title: 'renamed', model: 'lattice:code' } });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.title, 'renamed');
  assert.equal(patched.body.model, 'lattice:code');
  assert.deepEqual((await chat.as(user, '/api/conversations')).body.data.map((c: any) => c.id), [a.id, b.id]);
  assert.deepEqual((await chat.as(user, '/api/conversations?limit=1')).body.data.map((c: any) => c.id), [a.id]);
});

test('deleting a conversation removes it; a second delete is 404', async () => {
  const user = await chat.newUser();
  const c = (await chat.as(user, '/api/conversations', { method: 'POST' })).body;
  assert.equal((await chat.as(user, `/api/conversations/${c.id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await chat.as(user, `/api/conversations/${c.id}`)).status, 404);
  assert.equal((await chat.as(user, `/api/conversations/${c.id}`, { method: 'DELETE' })).status, 404);
});

test("another account's conversation is 404 for every route, exactly like a missing one", async () => {
  const owner = await chat.newUser();
  const other = await chat.newUser();
  const c = (await chat.as(owner, '/api/conversations', { body: { title: 'private' } })).body;
  const missing = await chat.as(other, '/api/conversations/conv_doesnotexist');
  for (const [method, path, body] of [
    ['GET', `/api/conversations/${c.id}`, undefined],
    ['PATCH', `/api/conversations/${c.id}`, { title: 'stolen' }],
    ['DELETE', `/api/conversations/${c.id}`, undefined],
    ['POST', `/api/conversations/${c.id}/messages`, { content: 'hello' }],
  ] as const) {
    const res = await chat.as(other, path, { method, ...(body ? { body } : {}) });
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.deepEqual(res.body, missing.body);
    assert.deepEqual(res.body, { error: { message: 'Conversation not found', type: 'not_found_error' } });
  }
  assert.deepEqual((await chat.as(other, '/api/conversations')).body.data, []);
  const still = await chat.as(owner, `/api/conversations/${c.id}`);
  assert.equal(still.body.title, 'private');
  // Nothing was counted for the refused message.
  assert.equal((await chat.as(other, '/api/usage')).body.messages.used, 0);
});

test('unknown model ids answer 400 naming the available ones; other spellings are not accepted', async () => {
  const user = await chat.newUser();
  for (const model of ['lattice:nope', 'compact', 'lattice/compact', 'lattice-tiny']) {
    const res = await chat.as(user, '/api/conversations', { body: { model } });
    assert.equal(res.status, 400, model);
    assert.equal(res.body.error.type, 'invalid_request_error');
    assert.match(res.body.error.message, new RegExp(`Unknown model '${model}'; available: lattice:compact, lattice:code`));
  }
  const c = (await chat.as(user, '/api/conversations', { method: 'POST' })).body;
  assert.equal((await chat.as(user, `/api/conversations/${c.id}`, { method: 'PATCH', body: { model: 'lattice:nope' } })).status, 400);
});
