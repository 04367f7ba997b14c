/** Notices are heard in the schema that raised them: deployments sharing one database in separate schemas do not wake or invalidate each other. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { openTestDatabase } from '../testing/harness.ts';
import { channelSql, notify } from './channels.ts';
import { openPostgres, type Database } from './database.ts';

const url = process.env.DATABASE_URL;

test('a channel keeps its bare name in the public schema and is named after any other', async () => {
  const store = await openTestDatabase([]);
  try {
    const [{ name }] = await store.db.query<{ name: string }>(`SELECT ${channelSql("'lattice_changes'")} AS name`);
    const [{ schema }] = await store.db.query<{ schema: string }>('SELECT current_schema() AS schema');
    assert.equal(name, schema === 'public' ? 'lattice_changes' : `lattice_changes@${schema}`);
  } finally {
    await store.close();
  }
});

/** A database whose sessions use `schema`, made for the test and dropped after it. */
async function inSchema(schema: string): Promise<{ db: Database; drop: () => Promise<void> }> {
  const admin = openPostgres({ connectionString: url, max: 1 });
  await admin.exec(`CREATE SCHEMA "${schema}"`);
  const db = openPostgres({ connectionString: url, options: `-c search_path="${schema}"` });
  return {
    db,
    async drop() {
      await db.close();
      await admin.exec(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.close();
    },
  };
}

test('on PostgreSQL a notice reaches the listeners of its own schema only, long schema names included', { skip: url ? false : 'needs PostgreSQL (DATABASE_URL)' }, async () => {
  const tag = randomBytes(4).toString('hex');
  const a = await inSchema(`chan_a_${tag}`);
  const b = await inSchema(`chan_b_${tag}_${'x'.repeat(40)}`);
  try {
    const heard = { a: [] as string[], b: [] as string[] };
    const stopA = await a.db.listen('lattice_test', (p) => heard.a.push(p));
    const stopB = await b.db.listen('lattice_test', (p) => heard.b.push(p));
    const [{ name }] = await b.db.query<{ name: string }>(`SELECT ${channelSql("'lattice_test'")} AS name`);
    assert.ok(Buffer.byteLength(name) <= 63 && name.startsWith('lattice_test@'), `a long schema's channel is within PostgreSQL's names: ${name}`);
    await notify(a.db, 'lattice_test', 'from-a');
    await a.db.transaction((tx) => notify(tx, 'lattice_test', 'from-a-at-commit'));
    await notify(b.db, 'lattice_test', 'from-b');
    for (let i = 0; i < 100 && (heard.a.length < 2 || heard.b.length < 1); i++) await new Promise((r) => setTimeout(r, 20));
    // A last notice to each, so that anything sent across would have arrived before it.
    await notify(a.db, 'lattice_test', 'end');
    await notify(b.db, 'lattice_test', 'end');
    for (let i = 0; i < 100 && (heard.a.length < 3 || heard.b.length < 2); i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(heard.a, ['from-a', 'from-a-at-commit', 'end']);
    assert.deepEqual(heard.b, ['from-b', 'end']);
    await stopA();
    await stopB();
  } finally {
    await a.drop();
    await b.drop();
  }
});
