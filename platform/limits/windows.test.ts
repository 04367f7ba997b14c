/**
 * Cluster-wide window limits: exact for one limiter and for several limiters on one database
 * (each stands for a process), all-or-none across windows, refunds, and slices given back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { platformMigrations } from '../migrations.ts';
import { channelSql } from '../storage/channels.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import { DAY, LIMIT_CHANGES_CHANNEL, MINUTE, WindowLimiter, pruneLimitWindows, type LimitWindow } from './windows.ts';

let t: TestDatabase;
before(async () => {
  t = await openTestDatabase(platformMigrations);
});
after(async () => {
  await t.close();
});

let n = 0;
const subject = () => `test:${process.pid}:${++n}`;
const minute = (limit: number | null): LimitWindow => ({ name: 'minute', limit, ms: MINUTE });
// An instant 20 s into a minute that begins ten minutes from now: well inside its window, so no
// test crosses a boundary, and still to come, so slices given back to it are counted (units of a
// window that has ended stay spent). A fixed date would turn every test into a past window.
const windowStart = (Math.floor(Date.now() / MINUTE) + 10) * MINUTE;
const at = new Date(windowStart + 20_000);

async function taken(s: string, ms = MINUTE): Promise<number> {
  const rows = await t.db.query<{ taken: number | string }>('SELECT taken FROM limit_windows WHERE subject = $1 AND window_ms = $2', [s, ms]);
  return rows.reduce((sum, r) => sum + Number(r.taken), 0);
}

describe('one limiter', () => {
  test('admits exactly the limit in a window, then refuses with the seconds until the window ends', async () => {
    const limiter = new WindowLimiter(t.db);
    const s = subject();
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await limiter.take(s, [minute(5)], at));
    assert.deepEqual(results.map((r) => r.ok), [true, true, true, true, true, false, false, false]);
    const refused = results[5]!;
    assert.ok(!refused.ok);
    assert.equal(refused.retryAfterSeconds, 40);
    assert.equal(refused.resetAt, windowStart + MINUTE);
    // The next window starts afresh.
    assert.equal((await limiter.take(s, [minute(5)], new Date(windowStart + MINUTE + 1))).ok, true);
    await limiter.close();
  });

  test('remaining counts down from the limit, and unlimited windows are not counted', async () => {
    const limiter = new WindowLimiter(t.db);
    const s = subject();
    const first = await limiter.take(s, [minute(300)], at);
    assert.ok(first.ok);
    assert.equal(first.remaining, 299);
    const second = await limiter.take(s, [minute(300)], at);
    assert.ok(second.ok);
    assert.equal(second.remaining, 298);
    const free = await limiter.take(subject(), [minute(null)], at);
    assert.ok(free.ok);
    assert.equal(free.remaining, null);
    await limiter.close();
  });

  test('a request refused by one window counts in none (all or none)', async () => {
    const limiter = new WindowLimiter(t.db);
    const s = subject();
    const windows = [minute(10), { name: 'day', limit: 3, ms: DAY }];
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await limiter.take(s, windows, at));
    assert.deepEqual(results.map((r) => r.ok), [true, true, true, false, false]);
    const refused = results[3]!;
    assert.ok(!refused.ok && refused.window.name === 'day');
    await limiter.close();
    assert.equal(await taken(s, MINUTE), 3, 'the minute counted only the 3 admitted requests');
    assert.equal(await taken(s, DAY), 3);
  });

  test('a refund gives the unit back to the window', async () => {
    const limiter = new WindowLimiter(t.db);
    const s = subject();
    const a = await limiter.take(s, [minute(2)], at);
    const b = await limiter.take(s, [minute(2)], at);
    assert.ok(a.ok && b.ok);
    assert.equal((await limiter.take(s, [minute(2)], at)).ok, false);
    limiter.refund(a.ticket);
    assert.equal((await limiter.take(s, [minute(2)], at)).ok, true);
    assert.equal((await limiter.take(s, [minute(2)], at)).ok, false);
    await limiter.close();
  });

  test('closing gives the unspent part of every slice back to the table', async () => {
    const limiter = new WindowLimiter(t.db);
    const s = subject();
    const now = new Date();
    // Quick requests grow the slice past what they spend.
    for (let i = 0; i < 20; i++) assert.equal((await limiter.take(s, [minute(800)], now)).ok, true);
    assert.ok((await taken(s)) > 20, 'the process holds a slice larger than it spent');
    await limiter.close();
    assert.equal(await taken(s), 20);
  });

  test('most requests are answered from the slice, without a statement', async () => {
    const limiter = new WindowLimiter(t.db);
    const s = subject();
    let statements = 0;
    const counting = { ...t.db, kind: t.db.kind, query: (text: string, params?: readonly unknown[]) => (statements++, t.db.query(text, params)) } as typeof t.db;
    const counted = new WindowLimiter(counting);
    const now = new Date();
    for (let i = 0; i < 400; i++) assert.equal((await counted.take(s, [minute(10_000)], now)).ok, true);
    assert.ok(statements < 20, `400 requests took ${statements} statements`);
    await counted.close();
    await limiter.close();
  });
});

test('once refused, a window is refused from memory for half a second: a flood of refused requests costs few statements', async () => {
  let statements = 0;
  const counting = { ...t.db, kind: t.db.kind, query: (text: string, params?: readonly unknown[]) => (statements++, t.db.query(text, params)) } as typeof t.db;
  const limiter = new WindowLimiter(counting);
  const s = subject();
  const now = new Date();
  for (let i = 0; i < 3; i++) assert.equal((await limiter.take(s, [minute(3)], now)).ok, true);
  const before = statements;
  for (let i = 0; i < 200; i++) assert.equal((await limiter.take(s, [minute(3)], now)).ok, false);
  assert.ok(statements - before <= 3, `200 refusals took ${statements - before} statements`);
  await limiter.close();
});

describe('several processes on one database', () => {
  test('three limiters together admit exactly the limit, requests spread over them', async () => {
    const limiters = [new WindowLimiter(t.db), new WindowLimiter(t.db), new WindowLimiter(t.db)];
    const s = subject();
    const now = new Date();
    const admitted = async (count: number) => {
      const all = await Promise.all(Array.from({ length: count }, (_, i) => limiters[i % 3]!.take(s, [minute(30)], now)));
      return all.filter((r) => r.ok).length;
    };
    let total = await admitted(90);
    assert.ok(total <= 30, `admitted ${total} of a limit of 30`);
    // Units a limiter holds unspent go back within the idle bound (1 s); then the rest of the budget is admitted.
    await new Promise((r) => setTimeout(r, 1_300));
    total += await admitted(60);
    assert.equal(total, 30);
    await Promise.all(limiters.map((l) => l.close()));
    assert.equal(await taken(s), 30);
  });

  test('sequential requests round-robin over three limiters: the limit is reached exactly, never passed', async () => {
    const limiters = [new WindowLimiter(t.db), new WindowLimiter(t.db), new WindowLimiter(t.db)];
    const s = subject();
    const now = new Date();
    const results: boolean[] = [];
    for (let i = 0; i < 40; i++) results.push((await limiters[i % 3]!.take(s, [minute(30)], now)).ok);
    const admitted = results.filter(Boolean).length;
    assert.ok(admitted <= 30);
    if (t.db.kind === 'postgres') {
      // On PostgreSQL a refused process asks the others for their unspent units at once.
      assert.equal(admitted, 30, `admitted ${admitted}: ${results.map((r) => (r ? 1 : 0)).join('')}`);
    } else {
      await new Promise((r) => setTimeout(r, 1_300));
      let more = 0;
      for (let i = 0; i < 30; i++) if ((await limiters[i % 3]!.take(s, [minute(30)], now)).ok) more++;
      assert.equal(admitted + more, 30);
    }
    await Promise.all(limiters.map((l) => l.close()));
  });

  test('closing right after a slice is granted stops the listener the slice started', { skip: process.env.DATABASE_URL ? false : 'a slice listens on PostgreSQL only (DATABASE_URL)' }, async () => {
    // The listener connects without being waited for: closed before it was up, it stayed
    // connected with its LISTEN, and the pool it came from never ended.
    const [{ name }] = await t.db.query<{ name: string }>(`SELECT ${channelSql('$1::text')} AS name`, [LIMIT_CHANGES_CHANNEL]);
    const listeners = async () =>
      Number((await t.db.query<{ n: number | string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle' AND query = $1",
        [`LISTEN "${name.replaceAll('"', '""')}"`],
      ))[0]!.n);
    const listening = await listeners();
    for (let i = 0; i < 3; i++) {
      const limiter = new WindowLimiter(t.db);
      assert.equal((await limiter.take(subject(), [minute(10)], at)).ok, true);
      await limiter.close();
    }
    // Time for a listener left behind to finish connecting.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await listeners(), listening);

    // A request that reaches a closed limiter (one in flight at shutdown), refused by the table,
    // asks the others for units without staying to listen.
    const s = subject();
    const holder = new WindowLimiter(t.db);
    assert.equal((await holder.take(s, [minute(1)], at)).ok, true);
    const closed = new WindowLimiter(t.db);
    await closed.close();
    assert.equal((await closed.take(s, [minute(1)], at)).ok, false);
    await holder.close();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await listeners(), listening);
  });

  test('old windows are pruned', async () => {
    const limiter = new WindowLimiter(t.db);
    const s = subject();
    await limiter.take(s, [minute(5)], new Date('2020-01-01T00:00:00Z'));
    assert.ok((await pruneLimitWindows(t.db)) >= 1);
    assert.equal(await taken(s), 0);
    await limiter.close();
  });
});
