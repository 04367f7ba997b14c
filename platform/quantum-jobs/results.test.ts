import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allMigrations } from '../server.ts';
import { openTestDatabase } from '../testing/harness.ts';
import { COMPRESS_ABOVE_BYTES, decodeResult, encodeResult, INLINE_MAX_BYTES, jsonbOrder, resultAsRead } from './records.ts';

/** A result of about `bytes` of JSON, with the keys whose order jsonb and JavaScript disagree on. */
function result(bytes: number): Record<string, unknown> {
  const counts: Record<string, number> = {};
  for (let i = 0; JSON.stringify(counts).length < bytes; i++) counts[(i * 7919 % 1048576).toString(2).padStart(20, '0')] = 1 + (i % 7);
  return {
    shots: 1000,
    counts,
    // Integer-like keys (JavaScript lists them first), keys of several lengths, non-ASCII keys.
    odd: { '11': 1, '0': 2, '10': 3, zz: 4, a: 5, é: 6, e: 7, 'ab\u00e9': 8, '01': 9 },
    numbers: [0.1 + 0.2, 1e-7, 1e21, -0.5, 123456789012345, 2 ** -30],
    nested: [{ b: 1, a: { d: null, c: true } }, 'text with "quotes" and \u2603'],
  };
}

describe('result storage', () => {
  it('a result between the inline and the compressed sizes is stored compressed and reads back exactly as from jsonb', async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    try {
      await db.query('CREATE TEMP TABLE result_check (id int PRIMARY KEY, result jsonb, result_gz bytea)');
      for (const [id, bytes] of [[1, 200], [2, 20_000], [3, 60_000], [4, 100_000]] as const) {
        const value = result(bytes);
        const { json, gz } = encodeResult(value);
        const size = JSON.stringify(value).length;
        assert.equal(gz !== null, size > INLINE_MAX_BYTES, `${size} bytes: compressed above ${INLINE_MAX_BYTES}`);
        assert.equal(json === null, size > COMPRESS_ABOVE_BYTES, `${size} bytes: read-as text kept up to ${COMPRESS_ABOVE_BYTES}`);
        await db.query('INSERT INTO result_check (id, result, result_gz) VALUES ($1, $2::jsonb, $3)', [id, gz ? null : json, gz]);
        const [stored] = await db.query<{ result: unknown; result_gz: Uint8Array | null }>('SELECT result, result_gz FROM result_check WHERE id = $1', [id]);
        const read = decodeResult(stored!);
        assert.deepEqual(read, value);
        if (size <= COMPRESS_ABOVE_BYTES) {
          // What the same result reads as from a jsonb column, key order included.
          const [asJsonb] = await db.query<{ v: unknown }>('SELECT $1::jsonb AS v', [JSON.stringify(value)]);
          const jsonb = typeof asJsonb!.v === 'string' ? JSON.parse(asJsonb!.v) : asJsonb!.v;
          assert.equal(JSON.stringify(read), JSON.stringify(jsonb), `${size} bytes: same serialization as jsonb`);
        } else {
          assert.equal(JSON.stringify(read), JSON.stringify(value), 'a large result reads back in its own order');
        }
      }
    } finally {
      await close();
    }
  });

  it('keeps large inputs and compressed results out of line without compressing them again', async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    try {
      const columns = await db.query<{ attname: string; attstorage: string }>(
        "SELECT attname, attstorage FROM pg_attribute WHERE attrelid = 'quantum_jobs'::regclass AND attname IN ('input', 'result', 'result_gz') ORDER BY attname",
      );
      // 'e' (external): out of line, uncompressed; 'x' (extended): compressed, jsonb's default.
      assert.deepEqual(columns.map((c) => [c.attname, c.attstorage]), [['input', 'e'], ['result', 'x'], ['result_gz', 'e']]);
    } finally {
      await close();
    }
  });

  it('orders plain data as it is, and anything that serializes otherwise as its JSON reads', () => {
    class Point {
      constructor(readonly y: number, readonly x: number) {}
    }
    const values: Record<string, unknown>[] = [
      result(2_000),
      { when: new Date(0), b: [1, undefined, () => 1], a: undefined },
      { samples: new Float32Array([0.5, 1.5]), z: { toJSON: () => ({ b: 1, a: 2 }) } },
      { point: new Point(2, 1), list: [new Point(4, 3)], nan: Number.NaN, neg: -0 },
    ];
    for (const value of values) {
      const reference = JSON.stringify(jsonbOrder(JSON.parse(JSON.stringify(value))));
      assert.equal(resultAsRead(value), reference, JSON.stringify(value));
    }
  });
});
