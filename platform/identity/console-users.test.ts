import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, verifyPassword } from './console-users.ts';

test('a password verifies against its scrypt hash, and nothing else does', async () => {
  const stored = await hashPassword('correct horse battery');
  assert.match(stored, /^scrypt\$32768\$8\$1\$/);
  assert.equal(await verifyPassword('correct horse battery', stored), true);
  assert.equal(await verifyPassword('correct horse batterY', stored), false);
  assert.equal(await verifyPassword('correct horse battery', 'plain-text'), false);
  // Two hashes of one password differ: each has its own salt.
  assert.notEqual(await hashPassword('correct horse battery'), stored);
});
