/**
 * The durable job queue every service uses for long work (simulation, training, webhook
 * delivery): pg-boss on the same database as everything else, so any process that reaches
 * the store (the server, `lattice worker` on another machine) can take jobs. A job whose
 * worker dies stops reporting; when its `expireInSeconds` passes, maintenance fails it and
 * pg-boss retries it elsewhere, up to `retryLimit` times.
 *
 * @example
 *   const queue = await JobQueue.start(store.db);
 *   await queue.define('webhooks.deliver', { retryLimit: 8, expireInSeconds: 60 });
 *   await queue.work('webhooks.deliver', async (job) => deliver(job.data));
 *   await queue.send('webhooks.deliver', { id: 'evt_1' });
 */
import PgBoss from 'pg-boss';
import type { Database } from '../storage/database.ts';
import { workerStartsSettled } from './background.ts';

export interface QueueOptions {
  /** Schema pg-boss keeps its tables in (tests use their own). */
  schema?: string;
  /** How often expired jobs are failed and retried; lower it in tests. */
  maintenanceIntervalSeconds?: number;
  /** How often an idle worker polls for new jobs. */
  pollingIntervalSeconds?: number;
}

export interface JobDefinition {
  retryLimit?: number;
  retryDelay?: number;
  retryBackoff?: boolean;
  /** A job running longer than this is taken as lost (its worker died) and retried. */
  expireInSeconds?: number;
}

export interface Job<T> {
  id: string;
  name: string;
  data: T;
}

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export class JobQueue {
  private constructor(
    private readonly boss: PgBoss,
    private readonly options: QueueOptions,
  ) {}

  static async start(db: Database, options: QueueOptions = {}): Promise<JobQueue> {
    const boss = new PgBoss({
      db: {
        // pg-boss sends parameterised single statements, or parameterless scripts that
        // hold a whole transaction (BEGIN ... COMMIT) and must run in one round trip.
        async executeSql(text: string, values?: unknown[]) {
          const rows = values && values.length ? await db.query(text, values) : await db.exec(text);
          return { rows };
        },
      },
      schema: options.schema ?? 'pgboss',
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 30,
    } as unknown as PgBoss.ConstructorOptions);
    boss.on('error', (err: Error) => process.emitWarning(`job queue: ${err.message}`));
    await boss.start();
    return new JobQueue(boss, options);
  }

  /** Creates the queue with its retry policy (idempotent). */
  async define(name: string, definition: JobDefinition = {}): Promise<void> {
    const existing = await this.boss.getQueue(name);
    const policy = {
      name,
      retryLimit: definition.retryLimit ?? 3,
      retryDelay: definition.retryDelay ?? 1,
      retryBackoff: definition.retryBackoff ?? true,
      expireInSeconds: definition.expireInSeconds ?? 15 * 60,
    };
    if (existing) await this.boss.updateQueue(name, policy);
    else await this.boss.createQueue(name, policy);
  }

  async send<T extends object>(name: string, data: T, options: { singletonKey?: string; startAfter?: Date } = {}): Promise<string | null> {
    return this.boss.send(name, data, options);
  }

  /** Runs `handler` for each job; a throw fails the attempt (and retries it per the policy). */
  async work<T>(name: string, handler: (job: Job<T>) => Promise<unknown>): Promise<string> {
    return this.boss.work<T>(
      name,
      { batchSize: 1, pollingIntervalSeconds: this.options.pollingIntervalSeconds ?? 1 },
      async (jobs) => {
        for (const job of jobs) await handler({ id: job.id, name: job.name, data: job.data });
      },
    );
  }

  async state(name: string, id: string): Promise<{ state: JobState; retryCount: number; output: unknown } | null> {
    const job = await this.boss.getJobById(name, id);
    if (!job) return null;
    return { state: job.state as JobState, retryCount: job.retryCount, output: job.output };
  }

  /** Stops taking jobs and waits for the running ones (up to `timeoutMs`). */
  async stop(timeoutMs = 30_000): Promise<void> {
    await this.boss.stop({ graceful: true, wait: true, timeout: timeoutMs });
  }
}

/**
 * A queue started on first call and shared by every caller after that; `stop` stops it only
 * when it was started, after the worker starts handed over for it (background.ts) have ended,
 * so that no worker registers on a stopped queue. The server and the test harness give one to
 * every service.
 */
export function lazyQueue(db: Database, options: QueueOptions = {}): { get: () => Promise<JobQueue>; stop: () => Promise<void> } {
  let started: Promise<JobQueue> | null = null;
  const get = () => (started ??= JobQueue.start(db, options));
  return {
    get,
    async stop() {
      await workerStartsSettled(get);
      if (!started) return;
      const queue = await started.catch(() => null);
      await queue?.stop(10_000);
    },
  };
}
