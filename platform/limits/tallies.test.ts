/**
 * Tallies of units settled after the fact (platform/limits/tallies.ts): each window of a
 * subject counted apart, in one statement for many adds, units of an ended window dropped,
 * and another process's units seen after its batch and a refresh. (The gateway's tokens per
 * minute test the same tally through its counters: services/llm-gateway/limits.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { platformMigrations } from '../migrations.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import { WindowTally, windowStart } from './tallies.ts';
import { DAY, MINUTE } from './windows.ts';

let t: TestDatabase;
before(async () => {
  t = await openTestDatabase(platformMigrations);
});
after(async () => {
  await t.close();
});

let n = 0;
const subject = () => `tally:${process.pid}:${++n}`;

async function tableCount(s: string, ms: number, start: number): Promise<number> {
  const [row] = await t.db.query<{ taken: string | number }>('SELECT taken FROM limit_windows WHERE subject = $1 AND window_ms = $2 AND window_start = $3', [s, ms, start]);
  return Number(row?.taken ?? 0);
}

test("a subject's minute and day are counted apart, and many adds are one statement's sums", async () => {
  const tally = new WindowTally(t.db, { flushMs: 60_000 });
  const s = subject();
  const now = new Date();
  for (let i = 0; i < 20; i++) tally.add(s, MINUTE, windowStart(now, MINUTE), 3);
  tally.add(s, DAY, windowStart(now, DAY), 500);
  // Counted here at once, before any write.
  assert.equal(await tally.used(s, MINUTE, now), 60);
  assert.equal(await tally.used(s, DAY, now), 500);
  await tally.flush();
  assert.equal(await tableCount(s, MINUTE, windowStart(now, MINUTE)), 60);
  assert.equal(await tableCount(s, DAY, windowStart(now, DAY)), 500);
});

test('units of a window that has ended are not counted, and a new window starts from the table', async () => {
  const tally = new WindowTally(t.db, { flushMs: 60_000, refreshMs: 0 });
  const s = subject();
  const now = new Date();
  const past = windowStart(now, MINUTE) - MINUTE;
  tally.add(s, MINUTE, past, 7);
  await tally.flush();
  assert.equal(await tableCount(s, MINUTE, past), 0);
  // Another process wrote 9 to this minute; this one reads it (refresh 0: every check reads).
  await t.db.query('INSERT INTO limit_windows (subject, window_ms, window_start, taken, granted) VALUES ($1, $2, $3, 9, 0)', [s, MINUTE, windowStart(now, MINUTE)]);
  assert.equal(await tally.used(s, MINUTE, now), 9);
  tally.add(s, MINUTE, windowStart(now, MINUTE), 1);
  assert.equal(await tally.used(s, MINUTE, now), 10);
  await tally.flush();
  // Written and read back: counted once.
  assert.equal(await tally.used(s, MINUTE, now), 10);
});

test("another process's units count here after its batch is written and this copy is older than the refresh", async () => {
  const here = new WindowTally(t.db, { flushMs: 60_000, refreshMs: 100 });
  const there = new WindowTally(t.db, { flushMs: 60_000, refreshMs: 100 });
  const s = subject();
  const now = new Date();
  assert.equal(await here.used(s, DAY, now), 0);
  there.add(s, DAY, windowStart(now, DAY), 40);
  await there.flush();
  // Within the refresh interval this process still holds its last read.
  assert.equal(await here.used(s, DAY, now), 0);
  await new Promise((r) => setTimeout(r, 120));
  assert.equal(await here.used(s, DAY, now), 40);
});

test('prune drops the counts of ended windows only', async () => {
  const tally = new WindowTally(t.db, { flushMs: 60_000 });
  const s = subject();
  const now = new Date();
  tally.add(s, DAY, windowStart(now, DAY), 5);
  tally.prune(new Date(now.getTime() + MINUTE));
  assert.equal(await tally.used(s, DAY, now), 5, 'the day has not ended: its unwritten units stay');
  tally.prune(new Date(windowStart(now, DAY) + DAY));
  // Dropped from memory: a check reads the table, which does not hold the batch yet.
  assert.equal(await tally.used(s, DAY, now), 0);
  // The units themselves are still written.
  await tally.flush();
  assert.equal(await tableCount(s, DAY, windowStart(now, DAY)), 5);
});
