import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call } from '../../../platform/testing/harness.ts';
import { startChat, type ChatTest } from '../testing.ts';

let chat: ChatTest;
before(async () => {
  chat = await startChat();
});
after(() => chat.close());

test('a console user signs in with an HttpOnly, SameSite=Strict cookie that opens /api/auth/me', async () => {
  const user = await chat.newUser();
  const res = await call(`${chat.url}/api/auth/login`, { body: { email: user.email.toUpperCase(), password: user.password } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { userId: user.userId, accountId: user.accountId, email: user.email });
  const cookie = res.headers.get('set-cookie') ?? '';
  assert.match(cookie, /^lattice_chat=[A-Za-z0-9]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
  const me = await chat.as(user, '/api/auth/me');
  assert.equal(me.status, 200);
  assert.equal(me.body.email, user.email);
});

test('a wrong password or unknown email answers 401 without a cookie', async () => {
  const user = await chat.newUser();
  for (const body of [{ email: user.email, password: 'not-the-password' }, { email: 'nobody@example.test', password: 'whatever1' }]) {
    const res = await call(`${chat.url}/api/auth/login`, { body });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { error: { message: 'Invalid email or password', type: 'authentication_error' } });
    assert.equal(res.headers.get('set-cookie'), null);
  }
});

test('every private route answers 401 Not authenticated without a session, and API keys are not sessions', async () => {
  const { key } = await chat.newKey();
  for (const [method, path] of [
    ['GET', '/api/auth/me'],
    ['GET', '/api/usage'],
    ['GET', '/api/conversations'],
    ['POST', '/api/conversations'],
    ['GET', '/api/conversations/conv_x'],
    ['PATCH', '/api/conversations/conv_x'],
    ['DELETE', '/api/conversations/conv_x'],
    ['POST', '/api/conversations/conv_x/messages'],
  ] as const) {
    for (const headers of [{}, { authorization: `Bearer ${key}` }, { cookie: 'lattice_chat=forged' }] as Record<string, string>[]) {
      const res = await call(`${chat.url}${path}`, { method, headers, ...(method === 'POST' || method === 'PATCH' ? { body: path.endsWith('/messages') ? { content: 'hi' } : { title: 'hi' } } : {}) });
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.deepEqual(res.body, { error: { message: 'Not authenticated', type: 'authentication_error' } });
    }
  }
});

test('sign-out ends the session on the server, not only in the browser', async () => {
  const user = await chat.newUser();
  const out = await chat.as(user, '/api/auth/logout', { method: 'POST' });
  assert.equal(out.status, 204);
  assert.match(out.headers.get('set-cookie') ?? '', /lattice_chat=; .*Max-Age=0/);
  assert.equal((await chat.as(user, '/api/auth/me')).status, 401);
});

test('a session expires after seven days', async () => {
  const user = await chat.newUser();
  assert.equal((await chat.as(user, '/api/auth/me')).status, 200);
  chat.clock.set(new Date(Date.now() + 7 * 24 * 3600 * 1000 + 1000));
  assert.equal((await chat.as(user, '/api/auth/me')).status, 401);
});
