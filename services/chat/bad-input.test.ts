import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { startChat, type ChatTest, type ChatUser } from './testing.ts';

let chat: ChatTest;
let user: ChatUser;
let conversationId: string;
before(async () => {
  chat = await startChat();
  user = await chat.newUser();
  conversationId = (await chat.as(user, '/api/conversations', { method: 'POST' })).body.id;
});
after(() => chat.close());

const invalid = (res: { status: number; body: any }, pattern: RegExp) => {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.error.type, 'invalid_request_error');
  assert.match(res.body.error.message, pattern);
};

test('malformed JSON answers 400 in the chat error shape on every body route', async () => {
  invalid(await call(`${chat.url}/api/auth/login`, { rawBody: '{"email": "a@b",' }), /Malformed JSON/);
  invalid(await chat.as(user, '/api/conversations', { rawBody: '{nope' }), /Malformed JSON/);
  invalid(await chat.as(user, `/api/conversations/${conversationId}/messages`, { rawBody: '[1,2' }), /Malformed JSON/);
  invalid(await chat.as(user, `/api/conversations/${conversationId}`, { method: 'PATCH', rawBody: '' }), /Malformed JSON|body/);
});

test('wrong types and missing fields answer 400 naming the field', async () => {
  invalid(await call(`${chat.url}/api/auth/login`, { body: { email: 'a@example.test' } }), /body\.password is required/);
  invalid(await call(`${chat.url}/api/auth/login`, { body: { email: ['a'], password: 'x' } }), /body\.email/);
  invalid(await chat.as(user, `/api/conversations/${conversationId}/messages`, { body: {} }), /body\.content is required/);
  invalid(await chat.as(user, `/api/conversations/${conversationId}/messages`, { body: { content: { text: 'hi' } } }), /body\.content/);
  invalid(await chat.as(user, `/api/conversations/${conversationId}/messages`, { body: { content: 'hi', stream: 'sometimes' } }), /body\.stream/);
  invalid(await chat.as(user, `/api/conversations/${conversationId}/messages`, { body: { content: '' } }), /body\.content/);
  invalid(await chat.as(user, `/api/conversations/${conversationId}/messages`, { body: { content: '   \n ' } }), /must not be blank/);
  invalid(await chat.as(user, '/api/conversations', { body: { model: 42 } }), /body\.model/);
  invalid(await chat.as(user, '/api/conversations', { body: { title: '' } }), /body\.title/);
  invalid(await chat.as(user, `/api/conversations/${conversationId}`, { method: 'PATCH', body: {} }), /body/);
  invalid(await chat.as(user, '/api/conversations?limit=0'), /limit/);
  invalid(await chat.as(user, '/api/conversations?limit=many'), /limit/);
  invalid(await chat.as(user, '/api/conversations?before=yesterday'), /before/);
  // Nothing above counted as a message.
  assert.equal((await chat.as(user, '/api/usage')).body.messages.used, 0);
});

test('a message over 32,000 characters is refused, and a huge body is refused before it is read', async () => {
  invalid(await chat.as(user, `/api/conversations/${conversationId}/messages`, { body: { content: 'a'.repeat(32_001) } }), /body\.content/);
  const huge = await chat.as(user, `/api/conversations/${conversationId}/messages`, { body: { content: 'a'.repeat(2_000_000) } });
  invalid(huge, /too large/);
  const hugeLogin = await call(`${chat.url}/api/auth/login`, { body: { email: 'a@example.test', password: 'p'.repeat(1_000_000) } });
  invalid(hugeLogin, /too large/);
  assert.equal((await chat.as(user, '/api/usage')).body.messages.used, 0);
});

test('a non-JSON content type answers 415 in the chat error shape', async () => {
  const res = await chat.as(user, `/api/conversations/${conversationId}/messages`, { rawBody: 'content=hi', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(res.status, 415);
  assert.equal(res.body.error.type, 'invalid_request_error');
});

test('over-long and odd conversation ids answer 400 or 404, never 500', async () => {
  invalid(await chat.as(user, `/api/conversations/${'x'.repeat(65)}`), /params\.id/);
  for (const id of ["conv_'; DROP TABLE chat_messages; --", '%00', 'conv_%F0%9F%92%A5']) {
    const res = await chat.as(user, `/api/conversations/${encodeURIComponent(id)}`);
    assert.equal(res.status, 404, id);
  }
});
