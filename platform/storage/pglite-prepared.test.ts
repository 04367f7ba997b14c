import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { migratedDump } from './store-template.ts';
import { openPglite, type EmbeddedDatabase } from './database.ts';
import { PreparedStatements } from './pglite-prepared.ts';

const preparedCount = async (pg: PGlite): Promise<number> =>
  Number((await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'lattice_stmt_%'`)).rows[0]!.n);

// The embedded store only (run in the embedded pass): on a server, node-postgres runs the statements.
describe('prepared statements on the embedded store', { skip: process.env.DATABASE_URL ? 'the embedded store only' : false }, () => {
  let db: EmbeddedDatabase;
  before(async () => {
    db = await openPglite(null, { loadDataDir: await migratedDump([]), autovacuumMs: 0 });
    await db.query(`CREATE TABLE prep_kinds (id int PRIMARY KEY, big bigint, amount numeric, label text, doc jsonb, at timestamptz, tags text[], raw bytea, flag boolean)`);
  });
  after(() => db.close());

  test('every type comes back as PGlite itself parses it, and parameters go in as it serializes them', async () => {
    const at = new Date('2026-11-27T10:11:12.345Z');
    const insert = `INSERT INTO prep_kinds VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`;
    const params = [1, 9007199254740993n, '12.500000001', 'ünïcode "quoted"', { a: [1, 'two', null], b: { c: true } }, at, ['x', 'y,z', 'with "q"'], new Uint8Array([0, 1, 255]), true];
    const viaPrepared = await db.query(insert, params);
    const viaPglite = (await db.pglite.query(`SELECT * FROM prep_kinds WHERE id = 1`)).rows;
    assert.deepEqual(viaPrepared, viaPglite);
    assert.deepEqual(viaPrepared[0], {
      id: 1,
      big: 9007199254740993n,
      amount: '12.500000001',
      label: 'ünïcode "quoted"',
      doc: { a: [1, 'two', null], b: { c: true } },
      at,
      tags: ['x', 'y,z', 'with "q"'],
      raw: new Uint8Array([0, 1, 255]),
      flag: true,
    });
    // Nulls, in and out; a statement without rows gives none.
    assert.deepEqual(await db.query(`INSERT INTO prep_kinds (id, label) VALUES ($1, $2) RETURNING label, doc`, [2, null]), [{ label: null, doc: null }]);
    assert.deepEqual(await db.query(`UPDATE prep_kinds SET flag = $2 WHERE id = $1`, [2, false]), []);
  });

  test('bytea goes in and out through the store\'s own hex codec, byte for byte, as a plain Uint8Array', async () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7919 + (i >> 8)) & 0xff);
    const buffer = Buffer.from([0, 0x7f, 0x80, 0xff]);
    const view = new Uint8Array(bytes.buffer, 3, 5);
    for (const [id, raw] of [[10, bytes], [11, buffer], [12, view], [13, new Uint8Array(0)]] as const) {
      const [row] = await db.query<{ raw: Uint8Array; hex: string }>(`INSERT INTO prep_kinds (id, raw) VALUES ($1, $2) RETURNING raw, encode(raw, 'hex') AS hex`, [id, raw]);
      assert.equal(row!.hex, Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('hex'), 'stored as sent (a view sends only its own bytes)');
      assert.equal(row!.raw.constructor, Uint8Array);
      assert.deepEqual(row!.raw, new Uint8Array(raw));
      const [read] = (await db.pglite.query<{ raw: Uint8Array }>(`SELECT raw FROM prep_kinds WHERE id = ${id}`)).rows;
      assert.deepEqual(read!.raw, new Uint8Array(raw), 'and PGlite\'s own queries read it alike');
    }
    await assert.rejects(db.query(`INSERT INTO prep_kinds (id, raw) VALUES ($1, $2)`, [14, 'not bytes']), /Invalid input for bytea type/);
    // Read in another output format the value is refused, not turned into wrong bytes.
    await db.exec(`SET bytea_output = 'escape'`);
    try {
      await assert.rejects(db.query(`SELECT raw FROM prep_kinds WHERE id = $1`, [11]), /not in hex format/);
    } finally {
      await db.exec(`SET bytea_output = 'hex'`);
    }
  });

  test('a statement is prepared once and run many times', async () => {
    const before = await preparedCount(db.pglite);
    for (let i = 0; i < 20; i++) assert.deepEqual(await db.query(`SELECT $1::int + 1 AS next`, [i]), [{ next: i + 1 }]);
    assert.equal(await preparedCount(db.pglite), before + 1);
  });

  test('past its capacity the least recently used statement is closed', async () => {
    const own = new PreparedStatements(db.pglite, 2);
    const before = await preparedCount(db.pglite);
    await own.query(`SELECT $1::int AS a`, [1], false);
    await own.query(`SELECT $1::int AS b`, [1], false);
    await own.query(`SELECT $1::int AS a`, [2], false);
    await own.query(`SELECT $1::int AS c`, [1], false);
    // The Close of `b` goes out with the next exchange.
    assert.deepEqual(await own.query(`SELECT $1::int AS a`, [3], false), [{ a: 3 }]);
    assert.equal(await preparedCount(db.pglite), before + 2);
  });

  test('a table changed under a prepared statement: the statement is prepared again', async () => {
    await db.query(`CREATE TABLE prep_shape (id int PRIMARY KEY)`);
    await db.query(`INSERT INTO prep_shape VALUES ($1)`, [1]);
    assert.deepEqual(await db.query(`SELECT * FROM prep_shape WHERE id = $1`, [1]), [{ id: 1 }]);
    await db.query(`ALTER TABLE prep_shape ADD COLUMN note text DEFAULT 'added'`);
    assert.deepEqual(await db.query(`SELECT * FROM prep_shape WHERE id = $1`, [1]), [{ id: 1, note: 'added' }]);
  });

  test('a session whose statements were deallocated (a socket client may do so) recovers', async () => {
    assert.deepEqual(await db.query(`SELECT $1::text AS v`, ['before']), [{ v: 'before' }]);
    await db.pglite.exec('DEALLOCATE ALL');
    assert.deepEqual(await db.query(`SELECT $1::text AS v`, ['after']), [{ v: 'after' }]);
  });

  test('errors keep their SQLSTATE and leave the session usable; in a transaction they roll it back', async () => {
    await assert.rejects(db.query(`INSERT INTO prep_kinds (id) VALUES ($1)`, [1]), (err: { code?: string }) => err.code === '23505');
    await assert.rejects(db.query(`SELECT $1::int AS n FROM no_such_table`, [1]), (err: { code?: string }) => err.code === '42P01');
    assert.deepEqual(await db.query(`SELECT label FROM prep_kinds WHERE id = $1`, [2]), [{ label: null }]);
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO prep_kinds (id, label) VALUES ($1, $2)`, [3, 'rolled back']);
        await tx.query(`INSERT INTO prep_kinds (id) VALUES ($1)`, [1]);
      }),
      (err: { code?: string }) => err.code === '23505',
    );
    assert.deepEqual(await db.query(`SELECT count(*)::int AS n FROM prep_kinds WHERE id = $1`, [3]), [{ n: 0 }]);
    const kept = await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO prep_kinds (id, label) VALUES ($1, $2)`, [4, 'kept']);
      return tx.query<{ label: string }>(`SELECT label FROM prep_kinds WHERE id = $1`, [4]);
    });
    assert.deepEqual(kept, [{ label: 'kept' }]);
  });
});
