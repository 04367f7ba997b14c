import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migratedDump } from './store-template.ts';
import { openPglite, type EmbeddedDatabase } from './database.ts';
import { autovacuumOnce, startEmbeddedAutovacuum, tablesDue } from './embedded-autovacuum.ts';

interface Stat {
  n_dead_tup: string;
  last_vacuum: Date | null;
  last_analyze: Date | null;
  reltuples: number;
}

const stat = async (db: EmbeddedDatabase, table: string): Promise<Stat> =>
  (
    await db.query<Stat>(
      `SELECT s.n_dead_tup, s.last_vacuum, s.last_analyze, c.reltuples FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = $1`,
      [table],
    )
  )[0]!;

const until = async (check: () => Promise<boolean>, what: string): Promise<void> => {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`waited 20 s for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

// The embedded store only (run in the embedded pass): a PostgreSQL server runs its own autovacuum.
describe('embedded store autovacuum', { skip: process.env.DATABASE_URL ? 'the embedded store only' : false }, () => {
  let db: EmbeddedDatabase;
  before(async () => {
    db = await openPglite(null, { loadDataDir: await migratedDump([]), autovacuumMs: 0 });
  });
  after(() => db.close());

  test('a table filled past the analyze threshold is analyzed (inserts alone are not vacuumed), then is no longer due', async () => {
    await db.query('CREATE TABLE av_inserts (id int PRIMARY KEY, v text)');
    await db.query(`INSERT INTO av_inserts SELECT i, 'x' FROM generate_series(1, 1200) i`);
    const before = await stat(db, 'av_inserts');
    assert.equal(before.last_analyze, null);
    assert.ok(before.reltuples <= 0, 'never analyzed: the planner has no row count');
    assert.deepEqual(
      (await tablesDue(db.pglite)).filter((t) => t.table === 'av_inserts'),
      [{ schema: 'public', table: 'av_inserts', vacuum: false, analyze: true }],
    );
    await autovacuumOnce(db.pglite);
    const afterPass = await stat(db, 'av_inserts');
    assert.equal(afterPass.last_vacuum, null);
    assert.ok(afterPass.last_analyze instanceof Date);
    assert.equal(afterPass.reltuples, 1200);
    assert.equal((await tablesDue(db.pglite)).filter((t) => t.table === 'av_inserts').length, 0);
  });

  test('dead rows past 50 + 20 % of the table are reclaimed; fewer changes leave the table alone', async () => {
    await db.query(`UPDATE av_inserts SET v = 'y' WHERE id <= 100`);
    // 100 changed rows: past the analyze threshold (50 + 120), not yet the vacuum one (50 + 240).
    assert.equal((await tablesDue(db.pglite)).filter((t) => t.table === 'av_inserts').length, 0);
    await db.query(`UPDATE av_inserts SET v = 'z' WHERE id <= 300`);
    const due = (await tablesDue(db.pglite)).find((t) => t.table === 'av_inserts');
    assert.deepEqual(due, { schema: 'public', table: 'av_inserts', vacuum: true, analyze: false });
    assert.ok(Number((await stat(db, 'av_inserts')).n_dead_tup) >= 300);
    await autovacuumOnce(db.pglite);
    assert.equal(Number((await stat(db, 'av_inserts')).n_dead_tup), 0);
    assert.ok((await stat(db, 'av_inserts')).last_vacuum instanceof Date);
  });

  test('changes past the analyze threshold alone get an ANALYZE', async () => {
    const analyzedAt = (await stat(db, 'av_inserts')).last_analyze!;
    const vacuumedAt = (await stat(db, 'av_inserts')).last_vacuum!;
    await db.query(`UPDATE av_inserts SET v = 'w' WHERE id <= 200`);
    assert.deepEqual((await tablesDue(db.pglite)).find((t) => t.table === 'av_inserts'), { schema: 'public', table: 'av_inserts', vacuum: false, analyze: true });
    await autovacuumOnce(db.pglite);
    const s = await stat(db, 'av_inserts');
    assert.ok(s.last_analyze! > analyzedAt);
    assert.equal(s.last_vacuum!.getTime(), vacuumedAt.getTime());
  });

  test('the loop runs on its own, and stopping it waits for a pass under way', async () => {
    await db.query('CREATE TABLE av_loop (id int PRIMARY KEY)');
    await db.query('INSERT INTO av_loop SELECT generate_series(1, 1100)');
    const loop = startEmbeddedAutovacuum(db.pglite, { intervalMs: 20 });
    try {
      await until(async () => (await stat(db, 'av_loop')).last_analyze !== null, 'the loop to analyze av_loop');
    } finally {
      await loop.stop();
    }
    assert.equal((await stat(db, 'av_loop')).reltuples, 1100);
  });

  test('an embedded store opened with an interval runs the loop, and closes cleanly', async () => {
    const other = await openPglite(null, { loadDataDir: await migratedDump([]), autovacuumMs: 20 });
    try {
      await other.query('CREATE TABLE av_open (id int PRIMARY KEY)');
      await other.query('INSERT INTO av_open SELECT generate_series(1, 1100)');
      await until(async () => (await stat(other, 'av_open')).last_analyze !== null, 'the store to analyze av_open');
    } finally {
      await other.close();
    }
  });
});
