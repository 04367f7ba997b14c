/**
 * One leader per cluster: on the embedded store the one process leads; on PostgreSQL exactly one
 * of several contenders leads, and another takes over when it stops or its connection dies.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { platformMigrations } from '../migrations.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import { currentLeader, Leadership } from './leader.ts';
import { startLeaderLoop } from './loop.ts';

let t: TestDatabase;
before(async () => {
  t = await openTestDatabase(platformMigrations);
});
after(async () => {
  await t.close();
});

const onPostgres = () => t.db.kind === 'postgres';

function contender(name: string, events: string[], label: string): Leadership {
  return new Leadership(t.db, name, {
    retryMs: 100,
    address: () => `http://${label}.test`,
    onGain: () => {
      events.push(`${label}+`);
    },
    onLose: () => {
      events.push(`${label}-`);
    },
  });
}

async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a single contender leads at once and writes where it is', async () => {
  const events: string[] = [];
  const a = contender('single', events, 'a');
  await a.start();
  assert.equal(a.isLeader, true);
  assert.deepEqual(events, ['a+']);
  assert.equal((await currentLeader(t.db, 'single'))?.address, 'http://a.test');
  await a.stop();
  assert.deepEqual(events, ['a+', 'a-']);
  assert.equal(await currentLeader(t.db, 'single'), null);
});

test('of three contenders exactly one leads; when it stops another takes over', { skip: !process.env.DATABASE_URL && 'needs PostgreSQL' }, async () => {
  assert.ok(onPostgres());
  const events: string[] = [];
  const all = ['a', 'b', 'c'].map((label) => contender('three', events, label));
  try {
    await Promise.all(all.map((c) => c.start()));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(all.filter((c) => c.isLeader).length, 1);
    const first = all.find((c) => c.isLeader)!;
    await first.stop();
    await until(() => all.filter((c) => c.isLeader).length === 1);
    const second = all.find((c) => c.isLeader)!;
    assert.notEqual(second, first);
    // A leader is written where it is by the time it says it leads.
    assert.equal((await currentLeader(t.db, 'three'))?.holder, second.holder);
  } finally {
    // Also after a failed assertion: a contender left running keeps its connection, and the test process with it.
    await Promise.all(all.map((c) => c.stop()));
  }
  assert.equal(events.filter((e) => e.endsWith('+')).length, 2, events.join(' '));
});

test("a leader whose connection dies steps down and another takes over within seconds", { skip: !process.env.DATABASE_URL && 'needs PostgreSQL' }, async () => {
  const events: string[] = [];
  const a = contender('killed', events, 'a');
  const b = contender('killed', events, 'b');
  try {
    await a.start();
    await b.start();
    assert.equal(a.isLeader, true);
    assert.equal(b.isLeader, false);
    // The server ends the leader's session, as when its process dies.
    await t.db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objid::bigint = (hashtext(current_schema() || ':leader:killed')::bigint & 4294967295)`,
    );
    const started = Date.now();
    // The old leader steps down; one process (either: the old one's process is still alive here) leads again.
    const leading = () => events.filter((e) => e.endsWith('+')).length - events.filter((e) => e.endsWith('-')).length;
    await until(() => events.includes('a-') && leading() === 1);
    assert.ok(Date.now() - started < 3_000);
    assert.notEqual(a.isLeader, b.isLeader, events.join(' '));
  } finally {
    await a.stop();
    await b.stop();
  }
});

test('a stop during the first attempt waits for it and gives back what it took', async () => {
  const events: string[] = [];
  const name = `stopped-early-${Date.now()}`;
  const early = contender(name, events, 'early');
  const started = early.start();
  await early.stop();
  await started;
  assert.equal(early.isLeader, false);
  // It led for a moment or not at all, and in either case no longer.
  assert.ok(events.length === 0 || events.join(' ') === 'early+ early-', events.join(' '));
  assert.equal(await currentLeader(t.db, name), null);
  // Nothing it took is held: another contender leads at once.
  const next = contender(name, events, 'next');
  await next.start();
  assert.equal(next.isLeader, true);
  await next.stop();
});

test('a leader loop runs its work in the leading process only', async () => {
  let runsA = 0;
  let runsB = 0;
  const a = await startLeaderLoop(t.db, 'loop', 50, async () => void runsA++);
  const b = await startLeaderLoop(t.db, 'loop', 50, async () => void runsB++);
  // Runs counted, not time waited: a loaded machine runs a 50 ms loop less often than 8 times in 400 ms.
  if (onPostgres()) {
    await until(() => runsA >= 3);
    assert.equal(runsB, 0, `the follower ran ${runsB} times while the leader ran ${runsA}`);
  } else {
    // The embedded store has one process: every loop of it leads.
    await until(() => runsA >= 3 && runsB >= 3);
  }
  await a.stop();
  await b.stop();
});

test('decided() waits for the outcome of a first attempt started without waiting: a lone contender leads then', async () => {
  const events: string[] = [];
  const lone = contender(`lone-${Date.now()}`, events, 'lone');
  await lone.decided(); // not started: nothing to wait for
  assert.equal(lone.isLeader, false);
  const started = lone.start();
  await lone.decided();
  assert.equal(lone.isLeader, true, 'the first attempt has its outcome');
  assert.deepEqual(events, ['lone+']);
  await started;
  await lone.stop();
});
