/** Unknown fields on the chat application: 400 invalid_request_error naming the field, never dropped. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { startChat, type ChatTest, type ChatUser } from './testing.ts';

let chat: ChatTest;
let user: ChatUser;
before(async () => {
  chat = await startChat();
  user = await chat.newUser();
});
after(() => chat.close());

function assertRefused(r: { status: number; body: any }, message: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.error.type, 'invalid_request_error');
  assert.match(r.body.error.message, message);
}

describe('unknown fields (chat)', () => {
  it('sign-in, conversations and messages refuse fields they do not take, and nothing is created', async () => {
    assertRefused(await call(`${chat.url}/api/auth/login`, { body: { email: user.email, password: user.password, remember: true } }), /body\.remember is not a known field/);
    assertRefused(await chat.as(user, '/api/conversations', { method: 'POST', body: { model: 'x', name: 'mine' } }), /body\.name is not a known field; known fields: model, title/);
    assertRefused(await chat.as(user, '/api/conversations?limt=3'), /querystring\.limt is not a known field \(did you mean limit\?\)/);
    const list = await chat.as(user, '/api/conversations');
    assert.equal(list.status, 200);
    assert.equal((list.body.data ?? list.body.conversations ?? []).length, 0, JSON.stringify(list.body));
  });

  it('a message body refuses a misspelt content', async () => {
    const created = await chat.as(user, '/api/conversations', { method: 'POST', body: {} });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const r = await chat.as(user, `/api/conversations/${created.body.id}/messages`, { method: 'POST', body: { contents: 'hello' } });
    assertRefused(r, /body\.contents is not a known field \(did you mean content\?\)/);
  });
});

describe('the web page', () => {
  it('opens from a link that carries parameters it does not read (the API routes refuse them, the page does not)', async () => {
    const r = await fetch(`${chat.url}/?utm_source=mail&c=conv_unknown`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/html/);
  });
});

