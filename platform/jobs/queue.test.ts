import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore, type Store } from '../storage/store.ts';
import { JobQueue } from './queue.ts';

const fixture = fileURLToPath(new URL('./worker-fixture.ts', import.meta.url));

async function until<T>(what: string, probe: () => Promise<T | null | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

describe('the durable job queue', () => {
  let dir: string;
  let store: Store;
  let queue: JobQueue;
  const schema = `jobs_${randomBytes(4).toString('hex')}`;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lattice-jobs-'));
    store = await openStore({ dataDir: dir, databaseUrl: process.env.DATABASE_URL || undefined, serveSocket: true });
    queue = await JobQueue.start(store.db, { schema, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
  });
  after(async () => {
    await queue.stop(5_000);
    if (process.env.DATABASE_URL) await store.db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('each job runs exactly once and its result is kept', async () => {
    await queue.define('test.once', { retryLimit: 2, expireInSeconds: 30 });
    const seen: number[] = [];
    await queue.work<{ n: number }>('test.once', async (job) => {
      seen.push(job.data.n);
    });
    const ids = await Promise.all([1, 2, 3, 4, 5].map((n) => queue.send('test.once', { n })));
    await until('five jobs', async () => seen.length >= 5 || null);
    await until('completion', async () => {
      const states = await Promise.all(ids.map((id) => queue.state('test.once', id!)));
      return states.every((s) => s?.state === 'completed') || null;
    });
    assert.deepEqual([...seen].sort(), [1, 2, 3, 4, 5]);
  });

  test('a failing job is retried up to its limit, then marked failed', async () => {
    await queue.define('test.fail', { retryLimit: 2, retryDelay: 0, retryBackoff: false, expireInSeconds: 30 });
    let attempts = 0;
    await queue.work('test.fail', async () => {
      attempts++;
      throw new Error('boom');
    });
    const id = await queue.send('test.fail', {});
    const final = await until('failure', async () => {
      const s = await queue.state('test.fail', id!);
      return s?.state === 'failed' ? s : null;
    });
    assert.equal(attempts, 3);
    assert.equal(final.retryCount, 2);
  });

  test('a job in flight when its worker process dies is retried, not lost', async () => {
    await queue.define('test.hold', { retryLimit: 3, retryDelay: 0, retryBackoff: false, expireInSeconds: 2 });
    const id = await queue.send('test.hold', { n: 42 });
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...process.env, FIXTURE_DATA_DIR: dir, FIXTURE_SCHEMA: schema },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await until('the child to take the job', async () => output.includes(`taken ${id}`) || null, 90_000);
      assert.equal((await queue.state('test.hold', id!))?.state, 'active');
    } finally {
      child.kill('SIGKILL');
    }
    const redone: string[] = [];
    await queue.work<{ n: number }>('test.hold', async (job) => {
      redone.push(job.id);
    });
    const final = await until('the retried job to complete', async () => {
      const s = await queue.state('test.hold', id!);
      return s?.state === 'completed' ? s : null;
    });
    assert.deepEqual(redone, [id]);
    assert.ok(final.retryCount >= 1);
  });
  test('two processes working one queue take each job once; a process whose workers are busy leaves its sends to the other', async () => {
    await queue.define('test.split', { retryLimit: 0, expireInSeconds: 30 });
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...process.env, FIXTURE_DATA_DIR: dir, FIXTURE_SCHEMA: schema, FIXTURE_MODE: 'quick' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const takenThere = () => [...output.matchAll(/taken (\S+)/g)].map((m) => m[1]!);
    try {
      await until('the other process to start its workers', async () => output.includes('ready') || null, 90_000);
      // This process's two workers hold their jobs until all five are taken: with both busy,
      // the sends after the second wake nobody here, and only the other process can take them.
      const takenHere: string[] = [];
      const held = gate();
      const ids: string[] = [];
      await queue.work<{ n: number }>(
        'test.split',
        async (job) => {
          takenHere.push(job.id);
          await held.opened;
        },
        { concurrency: 2 },
      );
      for (let n = 0; n < 5; n++) ids.push((await queue.send('test.split', { n }))!);
      await until('all five taken', async () => takenHere.length + takenThere().length >= 5 || null, 30_000);
      held.open();
      const all = [...takenHere, ...takenThere()];
      assert.deepEqual([...all].sort(), [...ids].sort(), 'each job taken once, by one process');
      assert.ok(takenThere().length >= 3, `the other process took ${takenThere().length}`);
      await until('all five completed', async () => {
        const states = await Promise.all(ids.map((id) => queue.state('test.split', id)));
        return states.every((s) => s?.state === 'completed') || null;
      });
    } finally {
      child.kill('SIGKILL');
    }
  });

  describe('workers that do not wait for their poll', () => {
    // Workers polling once a minute: each job below is taken within seconds only if a send, a
    // found job or a sibling's find wakes a worker (pg-boss's own loop would wait the minute).
    let slow: JobQueue;
    const slowSchema = `${schema}_slow`;
    const POLL_S = 60;
    before(async () => {
      slow = await JobQueue.start(store.db, { schema: slowSchema, maintenanceIntervalSeconds: 30, pollingIntervalSeconds: POLL_S });
    });
    after(async () => {
      await slow.stop(5_000);
      if (process.env.DATABASE_URL) await store.db.exec(`DROP SCHEMA IF EXISTS ${slowSchema} CASCADE`);
    });
    const within = <T>(what: string, p: Promise<T>, ms = 20_000) =>
      Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms (the poll is ${POLL_S} s)`)), ms).unref())]);

    test('a sent job is taken at once by an idle worker, and a backlog without a poll between jobs', async () => {
      await slow.define('slow.backlog', { expireInSeconds: 30 });
      const seen: number[] = [];
      const all = gate();
      await slow.work<{ n: number }>('slow.backlog', async (job) => {
        seen.push(job.data.n);
        if (seen.length === 6) all.open();
      });
      // Let the worker's first (empty) fetch pass: it now sleeps for the minute.
      await new Promise((r) => setTimeout(r, 500));
      await slow.send('slow.backlog', { n: 0 });
      await within('the first job', until('the first job', async () => seen.length >= 1 || null));
      // Five at once: one worker takes them one after another, fetching again after each.
      await Promise.all([1, 2, 3, 4, 5].map((n) => slow.send('slow.backlog', { n })));
      await within('the backlog', all.opened);
      assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4, 5]);
    });

    test('with concurrency, a backlog is worked by every worker side by side', async () => {
      await slow.define('slow.side', { expireInSeconds: 30 });
      // Each job waits until three run at once: they finish only if three workers took them.
      let running = 0;
      const three = gate();
      const ended: number[] = [];
      await slow.work<{ n: number }>(
        'slow.side',
        async (job) => {
          if (++running === 3) three.open();
          await three.opened;
          ended.push(job.data.n);
        },
        { concurrency: 3 },
      );
      await new Promise((r) => setTimeout(r, 500));
      await Promise.all([1, 2, 3].map((n) => slow.send('slow.side', { n })));
      await within('three jobs side by side', until('three ends', async () => ended.length >= 3 || null));
      assert.deepEqual([...ended].sort(), [1, 2, 3]);
    });
  });
});
