/**
 * The quantum job system every quantum service shares: a job is a row of `quantum_jobs` that
 * the queue runner of any process on the store claims and runs on a pool of worker threads;
 * status changes are conditional UPDATEs (records.ts), emulated devices run their queues one
 * job at a time in FIFO order, and a job left behind by a dead process is put back and run
 * again. See README.md.
 *
 * @example
 *   const workers = await startQuantumWorkers(ctx);            // in build(); release() on close
 *   workers.onJobFinished('qcos', async (ctx, job) => { ... }); // webhooks, evidence: this app, this store
 *   const job = await submitJob(ctx, { service: 'qcos', accountId, kind: 'run', backend: 'statevector_simulator',
 *     input: { task: { qasm, backend: 'statevector_simulator', shots: 1000, optimizationLevel: 2, execute: true } } });
 *   const done = await waitForJob(ctx, { service: 'qcos', accountId }, job.id, 10_000);
 *   const result = await getJobResult(ctx, { service: 'qcos', accountId }, job.id);
 */
import { processSampledGauge } from '../observability/metrics.ts';
import { listBackends } from '../../engines/quantum/backends.ts';
import type { ServiceContext } from '../service.ts';
import type { Database } from '../storage/database.ts';
import { TaskCancelled, TaskFailure, WorkerPool } from './pool.ts';
import {
  cancel,
  insertAndClaim,
  queuePosition,
  queueAtInsert,
  queueStats,
  requeueFailed,
  selectJob,
  selectJobWithResult,
  selectJobs,
  selectResult,
  TERMINAL,
  usageFigures,
  type JobStatus,
  type ListQuery,
  type NewJob,
  type QuantumJob,
  type QueueStats,
  type Scope,
  type UsageFigures,
} from './records.ts';
import { runFinishedHandlers, type FinishedHandler } from './finished.ts';
import { QuantumRunner, type RunnerOptions } from './runner.ts';
import { prepareTask, TaskError, type CircuitTask, type JobInput, type Optimization } from './task.ts';
import { notify } from '../storage/channels.ts';

export { quantumJobMigrations } from './migrations.ts';
export { QuotaError, ACTIVE, TERMINAL, COMPRESS_ABOVE_BYTES } from './records.ts';
export type { JobError, JobKind, JobStatus, MinutesKind, NewJob, QuantumJob, QueueStats, Scope, SubmitLimits, UsageFigures, ListQuery } from './records.ts';
export { TaskFailure } from './pool.ts';
export { executeTask, prepareTask, TaskError, backendOf, validateCircuit, optimizeFor } from './task.ts';
export type { CircuitTask, Optimization, Quality, TaskResult, Limits } from './task.ts';
export type { RunnerOptions } from './runner.ts';
export type { JobInput } from './task.ts';
export type { FinishedHandler } from './finished.ts';

/** Emulated devices: the catalog's hardware backends, each with its own FIFO queue. */
export const DEVICE_IDS: readonly string[] = listBackends()
  .filter((b) => b.type === 'hardware')
  .map((b) => b.id);

export interface QuantumWorkers {
  runner: QuantumRunner;
  pool: WorkerPool;
  /**
   * Registers what happens when a job of `service` on this store ends (completed, failed or
   * cancelled), for as long as this caller holds the workers. Of the callers on one store, the
   * newest one still holding answers for the service (finished.ts); release() takes it off.
   */
  onJobFinished(service: string, handler: FinishedHandler): void;
  /** Gives back this caller's use and its handlers; the last one stops the runner (its jobs go back to the queue). */
  release(): Promise<void>;
}

export interface StartOptions extends RunnerOptions {
  /** Worker threads of the process's pool (default LATTICE_QUANTUM_WORKERS, else 2). */
  workers?: number;
}

let pool: WorkerPool | null = null;
const runners = new Map<Database, { runner: QuantumRunner; refs: number; started: Promise<void> }>();

function poolSize(options: StartOptions): number {
  const env = Number(process.env.LATTICE_QUANTUM_WORKERS);
  return options.workers ?? (Number.isInteger(env) && env > 0 ? env : 2);
}

/**
 * Starts this process's queue runner for the store (idempotent: later calls share it) and the
 * process's worker pool. Call it in a service's build(), and `release()` when the app closes.
 */
export async function startQuantumWorkers(ctx: ServiceContext, options: StartOptions = {}): Promise<QuantumWorkers> {
  if (!pool) {
    const made = new WorkerPool(poolSize(options));
    pool = made;
    // Worker utilisation, read at each scrape: the pool is the process's, shared by its services.
    processSampledGauge('lattice_quantum_workers', 'Quantum simulation workers in the pool, by state (busy, idle)', ['state'], (set) => {
      const busy = Math.min(made.size, made.load());
      set({ state: 'busy' }, busy);
      set({ state: 'idle' }, made.size - busy);
    });
  }
  let entry = runners.get(ctx.db);
  if (!entry) {
    const runner = new QuantumRunner(ctx, pool, DEVICE_IDS, options);
    entry = { runner, refs: 0, started: runner.start() };
    runners.set(ctx.db, entry);
  }
  entry.refs++;
  await entry.started;
  const held = entry;
  const handlers: Array<() => void> = [];
  let released = false;
  return {
    runner: held.runner,
    pool,
    onJobFinished(service, handler) {
      if (released) throw new Error('onJobFinished after release()');
      handlers.push(held.runner.finished.add(service, handler));
    },
    async release() {
      if (released) return;
      released = true;
      for (const off of handlers.splice(0)) off();
      if (--held.refs > 0) return;
      runners.delete(ctx.db);
      await held.runner.stop();
      if (runners.size === 0 && pool) {
        const p = pool;
        pool = null;
        await p.close();
      }
    },
  };
}

function runnerOf(ctx: ServiceContext): QuantumRunner | null {
  return runners.get(ctx.db)?.runner ?? null;
}

export interface Prepared {
  num_qubits: number;
  num_clbits: number;
  depth: number;
  optimization?: Optimization;
}

/**
 * Validates a circuit for its backend and runs the optimizer, off the event loop when the
 * process has workers. Throws TaskFailure (`INVALID_CIRCUIT`, `INVALID_BACKEND`,
 * `CIRCUIT_TOO_LARGE`) for what the caller should refuse.
 */
export async function prepareCircuit(ctx: ServiceContext, task: CircuitTask): Promise<Prepared> {
  const runner = runnerOf(ctx);
  if (!runner) {
    try {
      return prepareTask(task);
    } catch (err) {
      if (err instanceof TaskError) throw new TaskFailure(err.code, err.message, err.details);
      throw err;
    }
  }
  return (await runner.pool.run('prepare', task).done) as Prepared;
}

/**
 * Inserts a job (quota checks and insert in one transaction) and starts it at once when a
 * worker is free. With a free worker in this process the insert also claims the job when it
 * would head its queue (records.insertAndClaim): the row is written already taken by this
 * process and handed to the worker, with no claim statement and no NOTIFY; a small circuit
 * (inline.ts) runs before the insert, which then writes the job finished, its result and
 * charge included (one statement for the whole job; records.InsertClaim.completed). The job is
 * returned as submitted (`queued`), as the insert alone would return it.
 */
export async function submitJob(ctx: ServiceContext, job: NewJob<JobInput>): Promise<QuantumJob<JobInput>> {
  const runner = runnerOf(ctx);
  const claim = runner?.reserve(job) ?? null;
  const now = ctx.now();
  // A small circuit runs now, and its insert writes it finished (runner.runBeforeInsert).
  const ran = claim && !claim.device ? runner!.runBeforeInsert(job.input.task) : null;
  let row: QuantumJob<JobInput>;
  try {
    row = await insertAndClaim(ctx.db, job, now, claim && ran ? { ...claim, completed: ran } : claim);
  } catch (err) {
    if (claim) runner!.settle(null);
    throw err;
  }
  if (claim) runner!.settle(row, ran);
  else runner?.kick();
  if (row.status !== 'queued') {
    const submitted = asSubmitted(row);
    takenAtInsert.add(submitted);
    return submitted;
  }
  if (ctx.db.kind === 'postgres') await notify(ctx.db, 'quantum_jobs_new', row.id);
  return row;
}

/** Jobs submitJob returned that a worker of this process took at their insert (see queueAtSubmission). */
const takenAtInsert = new WeakSet<QuantumJob<JobInput>>();

/** A job taken at its insert (claimed, or written finished) as the insert of a queued job returns it. */
function asSubmitted(row: QuantumJob<JobInput>): QuantumJob<JobInput> {
  return {
    ...row,
    status: 'queued',
    attempts: row.attempts - 1,
    chargedMinutes: 0,
    refundedMinutes: 0,
    executionMs: null,
    startedAt: null,
    runStartedAt: null,
    finishedAt: null,
    updatedAt: row.createdAt,
  };
}

export async function getJob(ctx: ServiceContext, scope: Scope, id: string): Promise<QuantumJob<JobInput> | null> {
  return selectJob<JobInput>(ctx.db, scope, id);
}

export async function getJobResult<R = unknown>(ctx: ServiceContext, scope: Scope, id: string): Promise<R | null> {
  return selectResult<R>(ctx.db, scope, id);
}

/** The job and its result (null until it completed) in one read; null when the job is unknown. */
export async function getJobWithResult<R = unknown>(ctx: ServiceContext, scope: Scope, id: string): Promise<{ job: QuantumJob<JobInput>; result: R | null } | null> {
  // A job this process completed a moment ago (the read that follows `?wait`) is at hand: a completed row no longer changes.
  return runnerOf(ctx)?.recentResult<R>(scope, id) ?? selectJobWithResult<JobInput, R>(ctx.db, scope, id);
}

export async function listJobs(ctx: ServiceContext, query: ListQuery): Promise<{ jobs: QuantumJob<JobInput>[]; total: number }> {
  return selectJobs<JobInput>(ctx.db, query);
}

/** 1-based place in its backend's queue while the job is queued, else null. */
export async function jobQueuePosition(ctx: ServiceContext, job: QuantumJob<unknown>): Promise<number | null> {
  return queuePosition(ctx.db, job);
}

export type CancelOutcome =
  | { outcome: 'cancelled'; job: QuantumJob<JobInput>; previous: string }
  | { outcome: 'already_finished'; job: QuantumJob<JobInput> }
  | { outcome: 'not_found' };

/**
 * Cancels a job that is not finished: its row first (one conditional UPDATE, so a finish
 * racing it cannot also win), then its simulation, wherever it runs.
 */
export async function cancelJob(ctx: ServiceContext, scope: Scope, id: string, from?: readonly JobStatus[]): Promise<CancelOutcome> {
  const done = await cancel<JobInput>(ctx.db, scope, id, ctx.now(), from);
  if (!done) {
    const job = await selectJob<JobInput>(ctx.db, scope, id);
    return job ? { outcome: 'already_finished', job } : { outcome: 'not_found' };
  }
  const runner = runnerOf(ctx);
  if (done.owner) {
    const stoppedHere = runner?.stopLocal(id) ?? false;
    if (!stoppedHere && ctx.db.kind === 'postgres') await notify(ctx.db, 'quantum_jobs_cancel', id);
  }
  runner?.announce(done.job);
  await runFinishedHandlers(ctx, runner?.finished ?? null, done.job);
  return { outcome: 'cancelled', job: done.job, previous: done.previous };
}

/** Puts a failed job back in its queue (a new attempt, a new hold of the same size); null when it is not failed. */
export async function retryJob(ctx: ServiceContext, scope: Scope, id: string): Promise<QuantumJob<JobInput> | null> {
  const job = await requeueFailed<JobInput>(ctx.db, scope, id, ctx.now());
  if (job) runnerOf(ctx)?.kick();
  return job;
}

/**
 * The job and its result (null until it completed), once it is terminal or after `timeoutMs`;
 * null when unknown. A job this process runs is waited for before any read, so that its end,
 * and its result, come from memory.
 */
export async function waitForJobWithResult<R = unknown>(ctx: ServiceContext, scope: Scope, id: string, timeoutMs: number): Promise<{ job: QuantumJob<JobInput>; result: R | null } | null> {
  const deadline = Date.now() + timeoutMs;
  if (timeoutMs > 0 && runnerOf(ctx)?.runsHere(scope, id)) await waitForJob(ctx, scope, id, timeoutMs);
  const read = await getJobWithResult<R>(ctx, scope, id);
  const left = deadline - Date.now();
  if (!read || TERMINAL.includes(read.job.status) || left <= 0) return read;
  const ended = await waitForJob(ctx, scope, id, left);
  if (ended?.status === 'completed') return getJobWithResult<R>(ctx, scope, id);
  return ended ? { job: ended, result: null } : null;
}

/** Resolves once the job is terminal (or after `timeoutMs` with its current row); null when unknown. */
export async function waitForJob(ctx: ServiceContext, scope: Scope, id: string, timeoutMs: number): Promise<QuantumJob<JobInput> | null> {
  const runner = runnerOf(ctx);
  if (runner) return runner.waitFor(scope.service, scope.accountId, id, timeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await selectJob<JobInput>(ctx.db, scope, id);
    if (!job || ['completed', 'failed', 'cancelled'].includes(job.status) || Date.now() >= deadline) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Queue figures per backend, measured from the jobs table: waiting jobs, running jobs, the
 * mean wait of the last 24 hours and the expected wait of a job submitted now.
 */
export async function deviceQueueStats(ctx: ServiceContext, backends: readonly string[]): Promise<Map<string, QueueStats>> {
  const workers = runnerOf(ctx)?.pool.size ?? 1;
  return queueStats(ctx.db, backends, { now: ctx.now(), parallel: (b) => (DEVICE_IDS.includes(b) ? 1 : workers) });
}

/**
 * A submitted job's place in its backend's queue just after its insert (1-based) and the
 * seconds it should wait before it starts, from the queue figures of `deviceQueueStats` (one
 * statement). A job that `submitJob` returned taken at its insert (a worker of this process
 * started it, or it already ran) waits for nothing: first, no wait, and no statement.
 */
export async function queueAtSubmission(ctx: ServiceContext, job: QuantumJob<JobInput>): Promise<{ place: number; estimatedWaitSeconds: number }> {
  if (takenAtInsert.has(job)) return { place: 1, estimatedWaitSeconds: 0 };
  const workers = runnerOf(ctx)?.pool.size ?? 1;
  const { stats, place } = await queueAtInsert(ctx.db, job, { parallel: (b) => (DEVICE_IDS.includes(b) ? 1 : workers) });
  return { place, estimatedWaitSeconds: stats.estimated_wait };
}

/** An account's use of a service over a period, summed from its job rows. */
export async function jobUsage(ctx: ServiceContext, o: { service: string; accountId: string; from: Date; to: Date }): Promise<UsageFigures> {
  return usageFigures(ctx.db, o);
}

export { TaskCancelled };
