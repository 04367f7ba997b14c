/**
 * A worker process for the queue tests. FIXTURE_MODE `hold` (default): takes one job of
 * `test.hold`, reports it on stdout and then holds it forever, so the test can kill it mid-job.
 * `quick`: works `test.split` on two workers, reporting each job it takes and ending it at once.
 */
import { openStore } from '../storage/store.ts';
import { JobQueue } from './queue.ts';

const store = await openStore({ dataDir: process.env.FIXTURE_DATA_DIR!, databaseUrl: process.env.DATABASE_URL || undefined });
const queue = await JobQueue.start(store.db, { schema: process.env.FIXTURE_SCHEMA!, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
if (process.env.FIXTURE_MODE === 'quick') {
  await queue.work<{ n: number }>(
    'test.split',
    async (job) => {
      process.stdout.write(`taken ${job.id}\n`);
    },
    { concurrency: 2 },
  );
} else {
  await queue.work<{ n: number }>('test.hold', async (job) => {
    process.stdout.write(`taken ${job.id}\n`);
    await new Promise(() => {});
  });
}
process.stdout.write('ready\n');
