/**
 * Durable job queue benchmark (platform/jobs/queue.ts, pg-boss on the store): how fast four
 * workers of one queue work off a backlog of quick jobs (2 ms each, as a webhook delivery to a
 * fast receiver), beside how fast the same process sends them (the baseline: a queue cannot
 * be worked faster than its jobs reach the table); the delay from a send to its job starting
 * on an idle worker; and the fetch statements an idle queue sends per second. The store is the
 * embedded PGlite in a temporary data dir (or DATABASE_URL); the production polling interval
 * (1 s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobQueue } from '../../platform/jobs/queue.ts';
import { openStore } from '../../platform/storage/store.ts';
import { percentile } from './lib/timing.ts';

const JOBS = 300;
const WORKERS = 4;
const JOB_MS = 2;

export async function run(): Promise<void> {
  console.log(`load average at start ${loadavg()[0]!.toFixed(1)}`);
  const dir = mkdtempSync(join(tmpdir(), 'lattice-bench-queue-'));
  const store = await openStore({ dataDir: dir, databaseUrl: process.env.DATABASE_URL || undefined });
  const schema = `bench_queue_${process.pid}`;
  const queue = await JobQueue.start(store.db, { schema });
  let fetches = 0;
  const db = store.db as { query: typeof store.db.query };
  const query = db.query.bind(store.db);
  db.query = ((text: string, params?: readonly unknown[]) => {
    if (/WITH next as/.test(text)) fetches++;
    return query(text, params);
  }) as typeof store.db.query;
  try {
    await queue.define('bench.quick', { expireInSeconds: 60 });
    let done = 0;
    let allDone!: () => void;
    const finished = new Promise<void>((r) => (allDone = r));
    const sentAt = new Map<number, number>();
    const startDelays: number[] = [];
    await queue.work<{ i: number }>(
      'bench.quick',
      async (job) => {
        const t = sentAt.get(job.data.i);
        if (t !== undefined) startDelays.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, JOB_MS));
        if (++done === JOBS) allDone();
      },
      { concurrency: WORKERS },
    );
    // The workers' first fetches find nothing: from here they wait for their polls.
    await new Promise((r) => setTimeout(r, 1500));

    // One job at a time on an idle queue: the delay from the send to the handler.
    const single = 20;
    for (let i = 0; i < single; i++) {
      const before = done;
      sentAt.set(-1 - i, performance.now());
      await queue.send('bench.quick', { i: -1 - i });
      while (done === before) await new Promise((r) => setTimeout(r, 1));
      await new Promise((r) => setTimeout(r, 20));
    }
    const sorted = [...startDelays].sort((a, b) => a - b);
    console.log(`send -> start on an idle worker: p50 ${percentile(sorted, 50).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms (the poll is 1 s)`);

    done = 0;
    const t0 = performance.now();
    for (let i = 0; i < JOBS; i++) await queue.send('bench.quick', { i });
    const sendS = (performance.now() - t0) / 1000;
    await finished;
    const allS = (performance.now() - t0) / 1000;
    console.log(`${JOBS} jobs of ${JOB_MS} ms, ${WORKERS} workers: sent at ${(JOBS / sendS).toFixed(0)} per second (baseline), ` +
      `all done after ${allS.toFixed(2)} s: ${(JOBS / allS).toFixed(0)} jobs per second, x${(sendS / allS).toFixed(2)} of the send rate (${store.db.kind})`);

    await new Promise((r) => setTimeout(r, 1000));
    fetches = 0;
    await new Promise((r) => setTimeout(r, 10_000));
    console.log(`idle: ${(fetches / 10).toFixed(1)} fetch statements per second for ${WORKERS} workers`);
  } finally {
    await queue.stop(5_000);
    if (process.env.DATABASE_URL) await store.db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
