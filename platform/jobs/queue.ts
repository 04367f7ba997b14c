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
  /** How often an idle worker polls for new jobs (a queue's further workers: SIBLING_POLL_FACTOR times as long). */
  pollingIntervalSeconds?: number;
}

/**
 * A queue's workers past the first poll this many times less often: in this process, a sent
 * job and a found job wake them (see `work`), so their own polls only find jobs another
 * process sent while the first worker was busy.
 */
const SIBLING_POLL_FACTOR = 5;

/**
 * This process's workers of one queue: how many, and which of them are not running a job. A
 * worker is its pg-boss id, set once `boss.work` has returned it (its first job may come first).
 */
interface Workers {
  count: number;
  idle: Set<{ id: string }>;
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
  private readonly workers = new Map<string, Workers>();

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

  /** Queues a job; one of this process's idle workers of `name`, if any, takes it at once (others poll). */
  async send<T extends object>(name: string, data: T, options: { singletonKey?: string; startAfter?: Date } = {}): Promise<string | null> {
    const id = await this.boss.send(name, data, options);
    if (id && !(options.startAfter && options.startAfter.getTime() > Date.now())) this.wakeOne(name);
    return id;
  }

  /**
   * Runs `handler` for each job, on `concurrency` workers (default 1) that take jobs side by
   * side; a throw fails the attempt (and retries it per the policy).
   *
   * pg-boss's worker waits its polling interval after every fetch, even one that found a job:
   * on its own a worker took at most one job per interval (a queue of quick webhook deliveries
   * went at 4 per second). Here a worker that finds a job fetches again as soon as it is done,
   * and wakes one idle sibling, so a backlog is worked by every worker without waits; a sent
   * job wakes an idle worker at once; and only the first worker polls at the queue's interval.
   */
  async work<T>(name: string, handler: (job: Job<T>) => Promise<unknown>, options: { concurrency?: number } = {}): Promise<void> {
    const workers = this.workers.get(name) ?? { count: 0, idle: new Set<{ id: string }>() };
    this.workers.set(name, workers);
    const interval = this.options.pollingIntervalSeconds ?? 1;
    for (let i = 0; i < Math.max(1, options.concurrency ?? 1); i++) {
      const self = { id: '' };
      const first = workers.count++ === 0;
      workers.idle.add(self);
      self.id = await this.boss.work<T>(
        name,
        { batchSize: 1, pollingIntervalSeconds: first ? interval : interval * SIBLING_POLL_FACTOR },
        async (jobs) => {
          workers.idle.delete(self);
          // More may be waiting: this worker fetches again when done (no wait), a sibling now.
          if (self.id) this.boss.notifyWorker(self.id);
          this.wakeOne(name);
          try {
            for (const job of jobs) await handler({ id: job.id, name: job.name, data: job.data });
          } finally {
            workers.idle.add(self);
          }
        },
      );
    }
  }

  /**
   * Wakes one of this process's workers of `name` that is not running a job, to fetch now (one
   * fetching already fetches once more). A worker leaves `idle` only while it runs a job.
   */
  private wakeOne(name: string): void {
    for (const worker of this.workers.get(name)?.idle ?? []) {
      if (!worker.id) continue;
      this.boss.notifyWorker(worker.id);
      return;
    }
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
