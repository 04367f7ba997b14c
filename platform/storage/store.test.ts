import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createAccount, getAccount } from '../identity/accounts.ts';
import { identityMigrations } from '../identity/migrations.ts';
import { openTestDatabase } from '../testing/harness.ts';
import { migrate } from './migrate.ts';
import { embeddedOwner, openStore } from './store.ts';

const embedded = !process.env.DATABASE_URL;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'lattice-store-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('migrations', () => {
  test('apply once: a second run applies nothing and keeps the data', async () => {
    const { db, close } = await openTestDatabase(identityMigrations);
    try {
      const account = await createAccount(db, { email: 'once@example.test' });
      assert.deepEqual(await migrate(db, identityMigrations), []);
      assert.equal((await getAccount(db, account.id))?.email, 'once@example.test');
    } finally {
      await close();
    }
  });

  test('a duplicate migration id is refused before anything runs', async () => {
    const { db, close } = await openTestDatabase([]);
    try {
      await assert.rejects(migrate(db, [{ id: 'x/1', sql: 'SELECT 1' }, { id: 'x/1', sql: 'SELECT 2' }]), /duplicate migration id/);
    } finally {
      await close();
    }
  });

  test('a failing migration rolls back whole and is not recorded', async () => {
    const { db, close } = await openTestDatabase([]);
    try {
      const broken = { id: 'broken/1', sql: 'CREATE TABLE half_done (id int);\n--;\nSELECT * FROM no_such_table' };
      await assert.rejects(migrate(db, [broken]));
      const tables = await db.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'");
      assert.equal(tables.length, 0);
      const recorded = await db.query("SELECT 1 FROM lattice_migrations WHERE id = 'broken/1'");
      assert.equal(recorded.length, 0);
    } finally {
      await close();
    }
  });
});

describe('transactions', () => {
  test('an asynchronous commit commits, and its setting ends with its transaction', async () => {
    const { db, close } = await openTestDatabase([]);
    try {
      await db.exec('CREATE TABLE async_commit (n int)');
      const inside = await db.transaction(async (tx) => {
        await tx.query('INSERT INTO async_commit (n) VALUES ($1)', [1]);
        return (await tx.query<{ synchronous_commit: string }>('SHOW synchronous_commit'))[0]!.synchronous_commit;
      }, { asynchronousCommit: true });
      // PostgreSQL: the BEGIN's SET LOCAL applies inside; the embedded store has no WAL flush to skip.
      if (db.kind === 'postgres') assert.equal(inside, 'off');
      const plain = await db.transaction(async (tx) => (await tx.query<{ synchronous_commit: string }>('SHOW synchronous_commit'))[0]!.synchronous_commit);
      assert.equal(plain, 'on');
      assert.deepEqual(await db.query('SELECT n FROM async_commit'), [{ n: 1 }]);
      // A throw rolls back as in any transaction.
      await assert.rejects(db.transaction(async (tx) => {
        await tx.query('INSERT INTO async_commit (n) VALUES ($1)', [2]);
        throw new Error('undo');
      }, { asynchronousCommit: true }), /undo/);
      assert.deepEqual(await db.query('SELECT n FROM async_commit ORDER BY n'), [{ n: 1 }]);
    } finally {
      await close();
    }
  });
});

describe('the embedded store', { skip: embedded ? false : 'DATABASE_URL is set: the embedded store is not in use' }, () => {
  test('keeps its data across a close and a reopen', async () => {
    const dir = tempDir();
    const first = await openStore({ dataDir: dir, migrations: identityMigrations });
    const account = await createAccount(first.db, { email: 'persist@example.test', companyName: 'Persist Ltd' });
    assert.deepEqual(await first.db.query('SHOW shared_buffers'), [{ shared_buffers: '32MB' }]);
    await first.close();
    assert.equal(embeddedOwner(dir), null);
    const second = await openStore({ dataDir: dir, migrations: identityMigrations, sharedBuffers: '8MB' });
    try {
      const again = await getAccount(second.db, account.id);
      assert.equal(again?.company_name, 'Persist Ltd');
      // Set on the command line: the data dir's own settings (initdb's time zone) stay in force.
      assert.deepEqual(await second.db.query('SHOW shared_buffers'), [{ shared_buffers: '8MB' }]);
      assert.deepEqual(await second.db.query('SHOW timezone'), [{ TimeZone: 'UTC' }]);
      assert.match(readFileSync(join(dir, 'pgdata', 'postgresql.conf'), 'utf8'), /^shared_buffers = 128MB/m);
    } finally {
      await second.close();
    }
  });

  test('belongs to one process: without a socket a second opener is refused', async () => {
    const dir = tempDir();
    const owner = await openStore({ dataDir: dir, migrations: identityMigrations });
    try {
      await assert.rejects(openStore({ dataDir: dir }), /in use by process/);
    } finally {
      await owner.close();
    }
  });

  test('a served store is reached through its socket, transactions included', async () => {
    const dir = tempDir();
    const owner = await openStore({ dataDir: dir, migrations: identityMigrations, serveSocket: true });
    try {
      const client = await openStore({ dataDir: dir, migrations: identityMigrations });
      assert.equal(client.mode, 'embedded-via-socket');
      const made = await client.db.transaction(async (tx) => createAccount(tx, { email: 'via-socket@example.test' }));
      await assert.rejects(
        client.db.transaction(async (tx) => {
          await createAccount(tx, { email: 'rolled-back@example.test' });
          throw new Error('abort');
        }),
        /abort/,
      );
      await client.close();
      assert.equal((await getAccount(owner.db, made.id))?.email, 'via-socket@example.test');
      const rolled = await owner.db.query("SELECT 1 FROM accounts WHERE email = 'rolled-back@example.test'");
      assert.equal(rolled.length, 0);
    } finally {
      await owner.close();
    }
  });

  test('a lock left by a dead process is taken over', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'lattice.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, socket: false }));
    const store = await openStore({ dataDir: dir, migrations: identityMigrations });
    assert.equal(store.mode, 'embedded');
    await store.close();
  });
});
