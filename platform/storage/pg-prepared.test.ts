/** Statements on PostgreSQL run as named prepared statements, survive a change of their table, and stay bounded. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { openPostgres, type Database } from './database.ts';
import { StatementNames } from './pg-prepared.ts';

const url = process.env.DATABASE_URL;
const skip = url ? false : 'needs PostgreSQL (DATABASE_URL)';

/** One connection in a schema of its own (so that its session's prepared statements can be read), dropped after `fn`. */
async function withSchema(fn: (db: Database, admin: Database) => Promise<void>, options: { namedStatements?: boolean } = {}): Promise<void> {
  const schema = `prep_${randomBytes(4).toString('hex')}`;
  const admin = openPostgres({ connectionString: url, max: 1 });
  await admin.exec(`CREATE SCHEMA "${schema}"`);
  const db = openPostgres({ connectionString: url, max: 1, options: `-c search_path="${schema}"` }, options);
  try {
    await fn(db, admin);
  } finally {
    await db.close();
    await admin.exec(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.close();
  }
}

const prepared = (db: Database) =>
  db.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements WHERE name LIKE 'lattice\\_%' ORDER BY statement");

test('a statement with parameters is prepared once on its connection, inside and outside transactions', { skip }, async () => {
  await withSchema(async (db) => {
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
    const insert = 'INSERT INTO t (id, v) VALUES ($1, $2)';
    const read = 'SELECT v FROM t WHERE id = $1';
    for (let i = 1; i <= 3; i++) await db.query(insert, [i, `v${i}`]);
    await db.transaction(async (tx) => {
      await tx.query(insert, [4, 'v4']);
      assert.deepEqual(await tx.query(read, [4]), [{ v: 'v4' }]);
    });
    assert.deepEqual(await db.query(read, [2]), [{ v: 'v2' }]);
    // One entry per text, however often it ran; a statement without parameters is not named.
    assert.deepEqual((await prepared(db)).map((r) => r.statement), [insert, read]);
  });
});

test('after a column is added under a prepared SELECT *, the statement is prepared again and answers with it', { skip }, async () => {
  await withSchema(async (db, admin) => {
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, v text)');
    await db.query('INSERT INTO t VALUES ($1, $2)', [1, 'a']);
    const all = 'SELECT * FROM t WHERE id = $1';
    assert.deepEqual(await db.query(all, [1]), [{ id: 1, v: 'a' }]);
    // Another session (a newer process's migration) changes the table.
    await admin.exec(`ALTER TABLE ${(await db.query<{ s: string }>('SELECT current_schema() AS s'))[0]!.s}.t ADD COLUMN w int NOT NULL DEFAULT 7`);
    assert.deepEqual(await db.query(all, [1]), [{ id: 1, v: 'a', w: 7 }]);
    assert.deepEqual(await db.query(all, [1]), [{ id: 1, v: 'a', w: 7 }]);
    // Inside a transaction the failure is the caller's (its transaction is aborted); the next run is prepared afresh.
    await admin.exec(`ALTER TABLE ${(await db.query<{ s: string }>('SELECT current_schema() AS s'))[0]!.s}.t ADD COLUMN x int NOT NULL DEFAULT 8`);
    await assert.rejects(db.transaction((tx) => tx.query(all, [1])), /cached plan must not change result type/);
    assert.deepEqual(await db.query(all, [1]), [{ id: 1, v: 'a', w: 7, x: 8 }]);
  });
});

test('a statement the session lost (DEALLOCATE ALL) is prepared again', { skip }, async () => {
  await withSchema(async (db) => {
    const read = 'SELECT $1::int + 1 AS n';
    assert.deepEqual(await db.query(read, [1]), [{ n: 2 }]);
    await db.exec('DEALLOCATE ALL');
    assert.deepEqual(await db.query(read, [2]), [{ n: 3 }]);
  });
});

test('without names (the embedded store socket) nothing is prepared', { skip }, async () => {
  await withSchema(async (db) => {
    await db.query('SELECT $1::int AS n', [1]);
    assert.deepEqual(await prepared(db), []);
  }, { namedStatements: false });
});

test('at most `capacity` texts get a name; the others run unnamed', () => {
  const names = new StatementNames(2);
  const a = names.query('SELECT $1', [1]);
  const b = names.query('SELECT $1, 2', [1]);
  const c = names.query('SELECT $1, 3', [1]);
  assert.ok(a.name && b.name && a.name !== b.name);
  assert.equal(c.name, undefined);
  assert.equal(names.query('SELECT $1', [5]).name, a.name, 'a text keeps its name');
  assert.equal(names.query('SELECT 1').name, undefined, 'a text without parameters runs unnamed');
  // A refusal of the name gives the text a new one; any other error does not.
  assert.equal(names.replanned('SELECT $1', Object.assign(new Error('x'), { code: '23505' })), false);
  assert.equal(names.query('SELECT $1', [5]).name, a.name);
  assert.equal(names.replanned('SELECT $1', Object.assign(new Error('x'), { code: '0A000' })), true);
  assert.notEqual(names.query('SELECT $1', [5]).name, a.name);
  assert.equal(names.replanned('SELECT $1, 3', Object.assign(new Error('x'), { code: '26000' })), false, 'an unnamed text has nothing to replan');
});
