/** A change made by a command through the embedded store's socket reaches the owner's caches at once. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { KeyAuthenticator } from '../identity/key-cache.ts';
import { createKey, revokeKey } from '../identity/keys.ts';
import { identityMigrations } from '../identity/migrations.ts';
import { scanNotifications } from './socket-notices.ts';
import { openStore } from './store.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test('a NotificationResponse in a protocol chunk is found between other messages', () => {
  const enc = new TextEncoder();
  const body = new Uint8Array([0, 0, 0, 7, ...enc.encode('chan'), 0, ...enc.encode('pay'), 0]);
  const msg = new Uint8Array(1 + 4 + body.length);
  msg[0] = 0x41;
  new DataView(msg.buffer).setInt32(1, 4 + body.length);
  msg.set(body, 5);
  const ready = new Uint8Array([0x5a, 0, 0, 0, 5, 0x49]);
  const found: string[] = [];
  scanNotifications(new Uint8Array([...ready, ...msg, ...ready]), (c, p) => found.push(`${c}:${p}`));
  assert.deepEqual(found, ['chan:pay']);
});

test('a key revoked through the socket stops working on the owner at the next request', { skip: Boolean(process.env.DATABASE_URL) && 'embedded store only' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-notices-'));
  dirs.push(dir);
  const owner = await openStore({ dataDir: dir, serveSocket: true, migrations: identityMigrations });
  const auth = new KeyAuthenticator(owner.db, 60_000);
  await auth.start();
  try {
    const account = await createAccount(owner.db, { email: 'socket@example.test' });
    const key = await createKey(owner.db, { accountId: account.id, service: 'core', prefix: 'core' });
    assert.ok(await auth.authenticate(key.key, 'core', 'api_key'), 'the key works and is cached');
    const command = await openStore({ dataDir: dir });
    try {
      assert.equal(command.mode, 'embedded-via-socket');
      await revokeKey(command.db, key.id);
    } finally {
      await command.close();
    }
    // The cache would keep the key for a minute; the notification clears it.
    assert.equal(await auth.authenticate(key.key, 'core', 'api_key'), null);
  } finally {
    await auth.stop();
    await owner.close();
  }
});
