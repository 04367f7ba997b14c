/**
 * A worker process for the queue tests: takes one job of `test.hold`, reports it on stdout
 * and then holds it forever, so the test can kill it mid-job.
 */
import { openStore } from '../storage/store.ts';
import { JobQueue } from './queue.ts';

const store = await openStore({ dataDir: process.env.FIXTURE_DATA_DIR!, databaseUrl: process.env.DATABASE_URL || undefined });
const queue = await JobQueue.start(store.db, { schema: process.env.FIXTURE_SCHEMA!, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
await queue.work<{ n: number }>('test.hold', async (job) => {
  process.stdout.write(`taken ${job.id}\n`);
  await new Promise(() => {});
});
process.stdout.write('ready\n');
