/**
 * The per-key minute counters: settled tokens go to the table in batches, one statement for
 * many calls, and still count at once in the process that settled them and, after its batch
 * and a refresh, in every other process.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { limiterFor } from '../../platform/limits/windows.ts';
import type { Database } from '../../platform/storage/database.ts';
import { MinuteCounters, minuteOf } from './limits.ts';
import { startGateway, type GatewayUnderTest } from './testing/harness.ts';

let store: GatewayUnderTest;
before(async () => {
  store = await startGateway();
});
after(async () => {
  await store.close();
});

/** The store, counting the statements that write token counts. */
function counting(db: Database): { db: Database; tokenWrites: () => number } {
  let writes = 0;
  const wrapped = Object.create(db) as Database;
  wrapped.query = (async (text: string, params?: readonly unknown[]) => {
    if (/INSERT INTO limit_windows/.test(text)) writes++;
    return db.query(text, params);
  }) as Database['query'];
  return { db: wrapped, tokenWrites: () => writes };
}

const tpm = (tpmLimit: number) => ({ spendLimitMicros: null, rpmLimit: null, tpmLimit });

/**
 * Now, at least 10 s before the minute ends (waiting for the next one otherwise): tokens settled
 * after their minute has ended are not counted, so a test that crossed a minute would lose them.
 */
async function wellInsideAMinute(): Promise<Date> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((r) => setTimeout(r, left + 50));
  return new Date();
}

async function tableCount(keyId: string, minute: number): Promise<number> {
  const [row] = await store.db.query<{ taken: string | number }>('SELECT taken FROM limit_windows WHERE subject = $1 AND window_start = $2', [`llm-gateway:key:${keyId}:tokens`, minute]);
  return Number(row?.taken ?? 0);
}

test('tokens of many settled calls are written in one statement, and the table holds their sums per key', async () => {
  const { db, tokenWrites } = counting(store.db);
  const counters = new MinuteCounters(db, limiterFor(store.db));
  const minute = minuteOf(await wellInsideAMinute());
  for (let i = 0; i < 50; i++) counters.addTokens('key-a', minute, 7);
  for (let i = 0; i < 30; i++) counters.addTokens('key-b', minute, 3);
  assert.equal(tokenWrites(), 0, 'no statement per call');
  await counters.flush();
  assert.equal(tokenWrites(), 1);
  assert.equal(await tableCount('key-a', minute), 350);
  assert.equal(await tableCount('key-b', minute), 90);
  // Later calls add to the same rows.
  counters.addTokens('key-a', minute, 5);
  await counters.flush();
  assert.equal(tokenWrites(), 2);
  assert.equal(await tableCount('key-a', minute), 355);
});

test('the batch is written by itself shortly after the call that started it', async () => {
  const { db, tokenWrites } = counting(store.db);
  const counters = new MinuteCounters(db, limiterFor(store.db), { refreshMs: 250, flushMs: 20 });
  const minute = minuteOf(await wellInsideAMinute());
  counters.addTokens('key-timer', minute, 4);
  counters.addTokens('key-timer', minute, 6);
  for (const end = Date.now() + 5_000; tokenWrites() === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 5));
  await counters.flush();
  assert.equal(tokenWrites(), 1);
  assert.equal(await tableCount('key-timer', minute), 10);
});

test("a process's own unwritten tokens count at once; another process's count after its batch and a refresh, each once", async () => {
  const here = new MinuteCounters(store.db, limiterFor(store.db), { refreshMs: 250, flushMs: 60_000 });
  const there = new MinuteCounters(store.db, limiterFor(store.db), { refreshMs: 50, flushMs: 60_000 });
  const now = await wellInsideAMinute();
  const minute = minuteOf(now);
  assert.equal(await here.admit('key-c', tpm(100), now, 'r1'), minute);
  assert.equal(await there.admit('key-c', tpm(100), now, 'r2'), minute);
  here.addTokens('key-c', minute, 60);
  // Not written yet (the batch waits a minute here), yet the settling process counts it.
  assert.equal(await here.admit('key-c', tpm(61), now, 'r3'), minute);
  await assert.rejects(here.admit('key-c', tpm(60), now, 'r4'), /tpmLimit is 60 tokens per minute/);
  // The other process sees it once written and its copy is older than its refresh interval.
  await here.flush();
  await new Promise((r) => setTimeout(r, 60));
  await assert.rejects(there.admit('key-c', tpm(60), now, 'r5'), /tpmLimit is 60 tokens per minute/);
  assert.equal(await there.admit('key-c', tpm(61), now, 'r6'), minute);
  // Written and read back, the settling process still counts its tokens once, not twice.
  await new Promise((r) => setTimeout(r, 260));
  assert.equal(await here.admit('key-c', tpm(61), now, 'r7'), minute);
  there.addTokens('key-c', minute, 1);
  await there.flush();
  await new Promise((r) => setTimeout(r, 260));
  await assert.rejects(here.admit('key-c', tpm(61), now, 'r8'), /tpmLimit is 61 tokens per minute/);
  assert.equal(await here.admit('key-c', tpm(62), now, 'r9'), minute);
});
