/** License rows kept in memory: answered without a query until the row changes, by whoever changes it. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Database } from '../storage/database.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import { CHANGES_CHANNEL } from '../storage/changes.ts';
import { LicenseRows, noticeDigest, rowChangeNotices, rowChangeTrigger } from './license-rows.ts';
import { nextNotice } from './testing.ts';

const TOPIC = 'test-license-row';
const SECRET_TOPIC = 'test-secret-row';

interface Row {
  license_key: string;
  holder: string;
}

let store: TestDatabase;
let db: Database;

before(async () => {
  store = await openTestDatabase([
    {
      id: 'test/0001_license_rows',
      sql: `CREATE TABLE test_license_rows (license_key text PRIMARY KEY, holder text NOT NULL);\n--;\n${rowChangeTrigger('test_license_rows', TOPIC)}\n--;\n${rowChangeNotices('test_license_rows', TOPIC, { digest: false })}`,
    },
    {
      id: 'test/0002_secret_rows',
      sql: `CREATE TABLE test_secret_rows (license_key text PRIMARY KEY, holder text NOT NULL);\n--;\n${rowChangeTrigger('test_secret_rows', SECRET_TOPIC)}\n--;\n${rowChangeNotices('test_secret_rows', SECRET_TOPIC, { digest: true })}`,
    },
  ]);
  db = store.db;
});
after(() => store.close());

/** Rows that count their reads. */
function counted(): { rows: LicenseRows<Row>; reads: () => number } {
  let reads = 0;
  const rows = new LicenseRows<Row>(TOPIC, async (key) => {
    reads++;
    const [row] = await db.query<Row>('SELECT license_key, holder FROM test_license_rows WHERE license_key = $1', [key]);
    return row ?? null;
  });
  return { rows, reads: () => reads };
}

test('a found row is read once and then answered from memory; a missing key is read every time', async () => {
  const { rows, reads } = counted();
  await rows.start(db);
  try {
    await db.query(`INSERT INTO test_license_rows VALUES ('K-1', 'alice')`);
    assert.deepEqual(await rows.get('K-1'), { license_key: 'K-1', holder: 'alice' });
    assert.deepEqual(await rows.get('K-1'), { license_key: 'K-1', holder: 'alice' });
    assert.equal(reads(), 1);
    assert.equal(await rows.get('K-none'), null);
    assert.equal(await rows.get('K-none'), null);
    assert.equal(reads(), 3);
  } finally {
    rows.stop();
  }
});

test('an UPDATE or DELETE by hand (not through the cache) is seen on the next read, through the change notice', async () => {
  const { rows } = counted();
  await rows.start(db);
  try {
    await db.query(`INSERT INTO test_license_rows VALUES ('K-2', 'bob')`);
    assert.equal((await rows.get('K-2'))?.holder, 'bob');
    let notice = await nextNotice(db, TOPIC, 'K-2');
    await db.query(`UPDATE test_license_rows SET holder = 'carol' WHERE license_key = 'K-2'`);
    await notice.heard;
    assert.equal((await rows.get('K-2'))?.holder, 'carol');
    notice = await nextNotice(db, TOPIC, 'K-2');
    await db.query(`DELETE FROM test_license_rows WHERE license_key = 'K-2'`);
    await notice.heard;
    assert.equal(await rows.get('K-2'), null);
  } finally {
    rows.stop();
  }
});

test('a read that raced with a change does not keep the row it read before the change', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reads = 0;
  const rows = new LicenseRows<Row>(TOPIC, async (key) => {
    reads++;
    const [row] = await db.query<Row>('SELECT license_key, holder FROM test_license_rows WHERE license_key = $1', [key]);
    if (reads === 1) await gate;
    return row ?? null;
  });
  await rows.start(db);
  try {
    await db.query(`INSERT INTO test_license_rows VALUES ('K-3', 'dave')`);
    const racing = rows.get('K-3');
    const notice = await nextNotice(db, TOPIC, 'K-3');
    await db.query(`UPDATE test_license_rows SET holder = 'erin' WHERE license_key = 'K-3'`);
    await notice.heard;
    release();
    assert.equal((await racing)?.holder, 'dave');
    assert.equal((await rows.get('K-3'))?.holder, 'erin');
    assert.equal(reads, 2);
  } finally {
    rows.stop();
  }
});

test('drop forgets a row at once, without waiting for its notice', async () => {
  const { rows, reads } = counted();
  await rows.start(db);
  try {
    await db.query(`INSERT INTO test_license_rows VALUES ('K-4', 'frank')`);
    await rows.get('K-4');
    rows.drop('K-4');
    await rows.get('K-4');
    assert.equal(reads(), 2);
  } finally {
    rows.stop();
  }
});

test('a notice names a row by its key\'s SHA-256, never by the key, and drops the row kept under that key', async () => {
  const payloads: string[] = [];
  const unlisten = await db.listen(CHANGES_CHANNEL, (payload) => payloads.push(payload));
  let reads = 0;
  const rows = new LicenseRows<Row>(SECRET_TOPIC, async (key) => {
    reads++;
    const [row] = await db.query<Row>('SELECT license_key, holder FROM test_secret_rows WHERE license_key = $1', [key]);
    return row ?? null;
  });
  await rows.start(db);
  try {
    const key = 'LTC-SECR-ETKE-Y000-0001';
    await db.query('INSERT INTO test_secret_rows VALUES ($1, $2)', [key, 'grace']);
    assert.equal((await rows.get(key))?.holder, 'grace');
    const notice = await nextNotice(db, SECRET_TOPIC, noticeDigest(key));
    await db.query(`UPDATE test_secret_rows SET holder = 'heidi' WHERE license_key = $1`, [key]);
    await notice.heard;
    for (let i = 0; i < 100 && payloads.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(payloads, [`${SECRET_TOPIC}:${noticeDigest(key)}`]);
    assert.ok(!payloads.some((p) => p.includes(key)), 'the key itself is not in any notice');
    assert.match(noticeDigest(key), /^[0-9a-f]{64}$/);
    assert.equal((await rows.get(key))?.holder, 'heidi');
    assert.equal(reads, 2, 'the digest notice dropped the kept row');
  } finally {
    rows.stop();
    await unlisten();
  }
});
