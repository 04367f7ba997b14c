/**
 * The queue runner of one process: claims jobs from the jobs table (FIFO; one job at a time
 * per emulated device, across every process), runs them on the worker pool, writes each stage
 * and the result, keeps its claims alive with leases, and puts back the jobs of a process that
 * died. The submitting process reserves a free worker so that its insert claims the job
 * (`reserve`, `settle`), or calls `kick()`, so that a job starts at once instead of at the
 * next poll.
 */
import { observeQuantumWait } from '../observability/families.ts';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { EventEmitter } from 'node:events';
import type { ServiceContext } from '../service.ts';
import { TaskCancelled, TaskFailure, type WorkerPool } from './pool.ts';
import {
  advance,
  claimNext,
  complete,
  fail,
  recoverExpired,
  renewLeases,
  resultAsRead,
  selectJob,
  TERMINAL,
  type InsertClaim,
  type QuantumJob,
  type RanBeforeInsert,
  type Scope,
} from './records.ts';
import { FinishedHandlers, runFinishedHandlers } from './finished.ts';
import { runsInline } from './inline.ts';
import { executeTask, type CircuitTask, type JobInput, type Stage, type TaskResult } from './task.ts';

export type { JobInput } from './task.ts';

const IN_WORK_SQL = `('validating', 'optimizing', 'running')`;

interface Active {
  job: QuantumJob<JobInput>;
  taskId: number | null;
  stage: Stage;
  written: Stage;
  writing: Promise<void> | null;
  deferred: NodeJS.Timeout | null;
  runStartedAt: Date | null;
  runStartedPerf: number | null;
  timer: NodeJS.Timeout | null;
  stopped: boolean;
  /** Its end was told to waiters (announce); a waiter arriving later reads the row. */
  announced: boolean;
}

/** A completed job's row and result, kept a moment for the reads that follow its end. */
interface Recent {
  job: QuantumJob<JobInput>;
  resultJson: string;
  until: number;
}

/** How long, and how many, completed results stay in memory for the reads that follow the end. */
const RECENT_MS = 2000;
const RECENT_MAX = 256;

export interface RunnerOptions {
  /** How long a claim stays good without a heartbeat (default 30 s). */
  leaseSeconds?: number;
  /** How often the runner looks for jobs submitted by other processes and renews its leases (default 1 s). */
  pollMs?: number;
  /** Stage changes are written this long after they happen; a job that finishes sooner records only its end (default 2 ms). */
  stageWriteDelayMs?: number;
  /** How often a waiter reads its job's row, for an end written by another process (default 250 ms). */
  waitPollMs?: number;
}

export class QuantumRunner {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly active = new Map<string, Active>();
  private readonly events = new EventEmitter();
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly stageDelayMs: number;
  private readonly waitPollMs: number;
  private poller: NodeJS.Timeout | null = null;
  private claiming: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private unlisten: Array<() => Promise<void>> = [];
  private lastRenew = 0;
  /**
   * Whether the queue may hold a job this process could claim. A claim that finds nothing
   * clears it; a submission, a NOTIFY, the poll, a retry, or a device this process freed set
   * it again. A worker that frees up claims only while it is set, so the end of each job does
   * not cost an empty claim.
   */
  private pending = true;
  /** Bumped by every kick: a claim that found nothing clears `pending` only if no kick came meanwhile. */
  private kicks = 0;
  /** Seats promised to submissions whose insert claims the job (see reserve). */
  private reserved = 0;
  private readonly recent = new Map<string, Recent>();
  /** Ends of jobs being recorded (and their finished handlers run): `stop()` waits for them while the store is still open. */
  private readonly ending = new Set<Promise<void>>();
  /** What the end of a job of this store calls for, per service (finished.ts). */
  readonly finished = new FinishedHandlers();

  constructor(
    readonly ctx: ServiceContext,
    readonly pool: WorkerPool,
    readonly devices: readonly string[],
    options: RunnerOptions = {},
  ) {
    this.leaseMs = (options.leaseSeconds ?? 30) * 1000;
    this.pollMs = options.pollMs ?? 1000;
    this.stageDelayMs = options.stageWriteDelayMs ?? 2;
    this.waitPollMs = options.waitPollMs ?? 250;
    this.events.setMaxListeners(0);
  }

  async start(): Promise<void> {
    // The embedded store belongs to one process, so whatever was in work there belonged to a
    // process that is gone; on a shared server only expired leases are taken back.
    const recovered = await recoverExpired(this.ctx.db, new Date(), this.ctx.db.kind === 'pglite');
    if (recovered.length) process.emitWarning(`quantum jobs: ${recovered.length} job(s) of a stopped process put back in their queues`);
    if (this.ctx.db.kind === 'postgres') {
      this.unlisten.push(await this.ctx.db.listen('quantum_jobs_new', () => this.kick()));
      this.unlisten.push(await this.ctx.db.listen('quantum_jobs_cancel', (id) => this.stopLocal(id)));
    }
    this.pool.freed.add(this.onFreed);
    this.poller = setInterval(() => void this.tick(), this.pollMs);
    this.poller.unref();
    this.kick();
  }

  private readonly onFreed = () => this.drain();

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      if (Date.now() - this.lastRenew > this.leaseMs / 3) {
        this.lastRenew = Date.now();
        await renewLeases(this.ctx.db, this.owner, [...this.active.keys()], new Date(Date.now() + this.leaseMs));
        if (this.ctx.db.kind === 'postgres') await recoverExpired(this.ctx.db, new Date());
      }
    } catch (err) {
      process.emitWarning(`quantum jobs: lease renewal failed: ${(err as Error).message}`);
    }
    this.kick();
  }

  /** Busy emulated devices this process already runs (the claim query checks the others). */
  private busyDevices(): string[] {
    return [...this.active.values()].filter((a) => a.job.kind === 'run').map((a) => a.job.backend).filter((b) => this.devices.includes(b));
  }

  /** Workers free for a new job: idle seats less those promised to submissions in flight. */
  private free(): number {
    return this.pool.idle() - this.reserved;
  }

  /** Claims and starts as many jobs as the pool has free workers for. */
  kick(): void {
    this.pending = true;
    this.kicks++;
    this.drain();
  }

  /** Claims while the queue may hold a job for this process and a worker is free. */
  private drain(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    if (!this.pending || this.free() <= 0) return;
    this.claiming = (async () => {
      do {
        this.again = false;
        while (!this.stopped && this.pending && this.free() > 0) {
          const kicks = this.kicks;
          let job: QuantumJob<JobInput> | null;
          try {
            job = await claimNext<JobInput>(this.ctx.db, {
              owner: this.owner,
              leaseUntil: new Date(Date.now() + this.leaseMs),
              leaseNow: new Date(),
              now: this.ctx.now(),
              devices: this.devices,
              busyDevices: this.busyDevices(),
            });
          } catch (err) {
            if (!this.stopped) process.emitWarning(`quantum jobs: claim failed: ${(err as Error).message}`);
            return;
          }
          if (!job) {
            if (this.kicks === kicks) this.pending = false;
            break;
          }
          this.launch(job);
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.claiming = null;
    });
  }

  /**
   * Promises a free worker to a submission of this process, so that its insert may claim the
   * job at once (records.insertAndClaim); null when none is free or the job may not be taken at
   * insert. A run on an emulated device is taken at insert only on the embedded store, whose
   * statements run one at a time: on a shared server two processes' inserts could both find
   * the device free, so there the claim's head-of-queue rule decides.
   */
  reserve(job: { kind: string; backend: string }): InsertClaim | null {
    if (this.stopped || this.free() <= 0) return null;
    const device = job.kind === 'run' && this.devices.includes(job.backend);
    if (device && (this.ctx.db.kind !== 'pglite' || this.busyDevices().includes(job.backend))) return null;
    this.reserved++;
    return { owner: this.owner, leaseUntil: new Date(Date.now() + this.leaseMs), leaseNow: new Date(), device };
  }

  /**
   * Runs a small task on this thread before its job's insert (inline.ts says which tasks), so
   * that the insert writes the job finished (InsertClaim.completed): one statement for the
   * whole job instead of an insert and a completion. Null when the task is not one of those or
   * its run failed; that job takes the usual way (claimed at insert, run, its failure recorded).
   */
  runBeforeInsert(task: CircuitTask): RanBeforeInsert | null {
    if (this.stopped || !runsInline('execute', task)) return null;
    let runStartedAt: Date | null = null;
    try {
      const result = executeTask(task, (stage) => {
        if (stage === 'running') runStartedAt = this.ctx.now();
      });
      const finishedAt = this.ctx.now();
      return { result, executionMs: result.execution_time_ms, runStartedAt: runStartedAt ?? finishedAt, finishedAt };
    } catch {
      return null;
    }
  }

  /** Ends a reservation: runs the job its insert claimed, or (not claimed, or no insert) claims as usual. */
  settle(row: QuantumJob<JobInput> | null, ran: RanBeforeInsert | null = null): void {
    this.reserved--;
    if (row?.status === 'completed' && ran) {
      this.finishedAtInsert(row, ran);
      return;
    }
    if (row && row.status !== 'queued') {
      if (this.stopped) {
        // Stopped while the insert ran: the job goes back to its queue for the next process.
        void this.ctx.db
          .query(`UPDATE quantum_jobs SET status = 'queued', owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2 AND status IN ${IN_WORK_SQL}`, [row.id, this.owner])
          .catch(() => {});
        return;
      }
      this.launch(row);
      return;
    }
    if (row) this.kick();
    else this.drain();
  }

  /** A job its insert wrote finished (runBeforeInsert): what the end of a run does after `complete`, without the run. */
  private finishedAtInsert(job: QuantumJob<JobInput>, ran: RanBeforeInsert): void {
    observeQuantumWait(job.service, job.backend, Math.max(0, (ran.runStartedAt.getTime() - job.createdAt.getTime()) / 1000));
    this.remember(job, ran.result as TaskResult);
    this.announce(job);
    // On the next turn, as a run's end comes after its insert's answer: the submitter's own
    // statements about the job (a runtime job's phase, a webhook's lookup) go first.
    this.track(new Promise<void>((resolve) => setImmediate(() => void runFinishedHandlers(this.ctx, this.finished, job).finally(resolve))));
    this.drain();
  }

  private launch(job: QuantumJob<JobInput>): void {
    observeQuantumWait(job.service, job.backend, Math.max(0, this.ctx.now().getTime() - job.createdAt.getTime()) / 1000);
    const a: Active = {
      job,
      taskId: null,
      stage: 'validating',
      written: 'validating',
      writing: null,
      deferred: null,
      runStartedAt: null,
      runStartedPerf: null,
      timer: null,
      stopped: false,
      announced: false,
    };
    this.active.set(job.id, a);
    const { id, done } = this.pool.run('execute', job.input.task, (stage) => this.onStage(a, stage as Stage));
    a.taskId = id;
    this.track(this.finish(a, done));
  }

  private track(end: Promise<void>): void {
    this.ending.add(end);
    void end.finally(() => this.ending.delete(end));
  }

  private onStage(a: Active, stage: Stage): void {
    a.stage = stage;
    if (stage === 'running') {
      a.runStartedAt = this.ctx.now();
      a.runStartedPerf = performance.now();
      // The hold is the attempt's wall-clock limit: past it the run is stopped and the hold charged.
      if (a.job.minutesKind && a.job.holdMinutes > 0) {
        const ms = a.job.holdMinutes * 60_000;
        a.timer = setTimeout(() => this.track(this.timeOut(a)), ms);
        a.timer.unref();
      }
    }
    if (!a.deferred && !a.writing) {
      a.deferred = setTimeout(() => {
        a.deferred = null;
        this.writeStages(a);
      }, this.stageDelayMs);
    }
  }

  private writeStages(a: Active): void {
    if (a.writing || a.stopped) return;
    a.writing = (async () => {
      while (!a.stopped && a.written !== a.stage) {
        const to = a.stage;
        if (to === 'validating') break;
        try {
          await advance(this.ctx.db, a.job.id, this.owner, to, this.ctx.now(), to === 'running' ? a.runStartedAt ?? undefined : undefined);
        } catch {
          break;
        }
        a.written = to;
      }
    })().finally(() => {
      a.writing = null;
    });
  }

  private async finish(a: Active, done: Promise<TaskResult>): Promise<void> {
    let result: TaskResult | null = null;
    let failure: TaskFailure | null = null;
    try {
      result = await done;
    } catch (err) {
      if (err instanceof TaskCancelled) {
        this.release(a);
        return;
      }
      failure = err instanceof TaskFailure ? err : new TaskFailure('EXECUTION_ERROR', (err as Error).message);
    }
    if (a.deferred) {
      clearTimeout(a.deferred);
      a.deferred = null;
    }
    if (a.writing) await a.writing;
    a.stopped = true;
    if (a.timer) clearTimeout(a.timer);
    try {
      let finished: QuantumJob<JobInput> | null;
      if (result) {
        finished = await complete<JobInput>(this.ctx.db, {
          id: a.job.id,
          owner: this.owner,
          now: this.ctx.now(),
          result,
          executionMs: result.execution_time_ms,
          runStartedAt: a.runStartedAt,
          chargeMs: result.execution_time_ms,
          input: a.job.input,
        });
      } else {
        finished = await fail<JobInput>(this.ctx.db, {
          id: a.job.id,
          owner: this.owner,
          now: this.ctx.now(),
          error: { code: failure!.code, message: failure!.message, details: failure!.details },
          chargeMs: a.runStartedPerf === null ? 0 : performance.now() - a.runStartedPerf,
          runStartedAt: a.runStartedAt,
        });
      }
      // null: the job was cancelled (or taken back) meanwhile, and that change stands.
      if (finished) {
        if (result && finished.status === 'completed') this.remember(finished, result);
        this.announce(finished);
        await runFinishedHandlers(this.ctx, this.finished, finished);
      }
    } catch (err) {
      if (!this.stopped) process.emitWarning(`quantum job ${a.job.id}: could not record its end: ${(err as Error).message}`);
    } finally {
      this.release(a);
    }
  }

  private async timeOut(a: Active): Promise<void> {
    if (a.stopped || a.taskId === null) return;
    a.stopped = true;
    this.pool.cancel(a.taskId);
    const finished = await fail<JobInput>(this.ctx.db, {
      id: a.job.id,
      owner: this.owner,
      now: this.ctx.now(),
      error: { code: 'TIME_LIMIT_EXCEEDED', message: `The run passed its limit of ${a.job.holdMinutes} minutes and was stopped` },
      chargeMs: a.job.holdMinutes * 60_000,
      runStartedAt: a.runStartedAt,
    }).catch(() => null);
    if (finished) {
      this.announce(finished);
      await runFinishedHandlers(this.ctx, this.finished, finished);
    }
  }

  private release(a: Active): void {
    a.stopped = true;
    if (a.timer) clearTimeout(a.timer);
    if (a.deferred) clearTimeout(a.deferred);
    if (this.active.get(a.job.id) === a) this.active.delete(a.job.id);
    // A device this process held is free again: the head of its queue may be claimed now.
    if (a.job.kind === 'run' && this.devices.includes(a.job.backend)) this.kick();
    else this.drain();
  }

  /** Keeps a small completed result a moment, for the read that usually follows the end. */
  private remember(job: QuantumJob<JobInput>, result: TaskResult): void {
    // As the row reads (records.ts): a result stored as written, compressed, is not kept here.
    const readAs = resultAsRead(result);
    if (readAs === null) return;
    const now = Date.now();
    for (const [id, r] of this.recent) {
      if (r.until > now && this.recent.size < RECENT_MAX) break;
      this.recent.delete(id);
    }
    this.recent.set(job.id, { job: structuredClone(job), resultJson: readAs, until: now + RECENT_MS });
  }

  /**
   * A job this process completed in the last moments, with its result, as the row reads
   * (a completed row no longer changes); null when not at hand.
   */
  recentResult<R>(scope: Scope, id: string): { job: QuantumJob<JobInput>; result: R } | null {
    const r = this.recentOf(scope, id);
    return r ? { job: structuredClone(r.job), result: JSON.parse(r.resultJson) as R } : null;
  }

  /** The entry of `recent` for a job of `scope`, while it is kept. */
  private recentOf(scope: Scope, id: string): Recent | null {
    const r = this.recent.get(id);
    if (!r) return null;
    if (r.until <= Date.now()) {
      this.recent.delete(id);
      return null;
    }
    if (r.job.service !== scope.service || (scope.accountId !== undefined && r.job.accountId !== scope.accountId)) return null;
    return r;
  }

  /** Whether this process runs job `id` of `scope` now (its end will reach local waiters without a read). */
  runsHere(scope: Scope, id: string): boolean {
    const a = this.active.get(id);
    return a !== undefined && !a.announced && a.job.service === scope.service && (scope.accountId === undefined || a.job.accountId === scope.accountId);
  }

  /** Stops the simulation of a job this process runs (after its row was cancelled). */
  stopLocal(id: string): boolean {
    const a = this.active.get(id);
    if (!a || a.taskId === null) return false;
    a.stopped = true;
    this.pool.cancel(a.taskId);
    return true;
  }

  /** Tells local waiters that a job reached a terminal state. */
  announce(job: QuantumJob<JobInput>): void {
    const a = this.active.get(job.id);
    if (a) a.announced = true;
    this.events.emit(job.id, job);
  }

  /**
   * Resolves with the job once it is terminal, or with its current row after `timeoutMs`.
   * Local ends arrive as events; ends written by other processes are seen by polling.
   */
  async waitFor(service: string, accountId: string | undefined, id: string, timeoutMs: number): Promise<QuantumJob<JobInput> | null> {
    const scope = { service, accountId };
    // A job this process completed a moment ago (one its insert wrote finished, most often) needs no read either.
    const recent = this.recentOf(scope, id);
    if (recent) return structuredClone(recent.job);
    // A job this process runs and has not ended yet needs no read: its end arrives as an event.
    if (!(timeoutMs > 0 && this.runsHere(scope, id))) {
      const current = await selectJob<JobInput>(this.ctx.db, scope, id);
      if (!current || TERMINAL.includes(current.status) || timeoutMs <= 0) return current;
    }
    return new Promise((resolve) => {
      let settled = false;
      const done = (job: QuantumJob<JobInput> | null) => {
        if (settled) return;
        settled = true;
        this.events.off(id, onEvent);
        clearInterval(poll);
        clearTimeout(timer);
        resolve(job);
      };
      const onEvent = (job: QuantumJob<JobInput>) => done(job);
      this.events.on(id, onEvent);
      const poll = setInterval(async () => {
        const row = await selectJob<JobInput>(this.ctx.db, scope, id).catch(() => null);
        if (row && TERMINAL.includes(row.status)) done(row);
      }, this.waitPollMs);
      const timer = setTimeout(async () => done(await selectJob<JobInput>(this.ctx.db, scope, id).catch(() => null)), timeoutMs);
    });
  }

  /** Jobs this process is running now. */
  activeCount(): number {
    return this.active.size;
  }

  /** Stops claiming; the jobs it was running go back to their queues for the next process. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    this.pool.freed.delete(this.onFreed);
    await this.claiming?.catch(() => {});
    for (const stop of this.unlisten.splice(0)) await stop().catch(() => {});
    const ids = [...this.active.keys()];
    for (const a of this.active.values()) {
      a.stopped = true;
      if (a.taskId !== null) this.pool.cancel(a.taskId);
    }
    // A job whose run had already ended is recording that end: let it, and its finished handler,
    // finish on the open store (the cancelled ones return at once). It then left the working
    // states, so the UPDATE below does not put it back.
    await Promise.allSettled([...this.ending]);
    this.active.clear();
    if (ids.length) {
      await this.ctx.db
        .query(
          `UPDATE quantum_jobs SET status = 'queued', owner = NULL, lease_until = NULL, run_started_at = NULL
            WHERE owner = $1 AND id = ANY($2::text[]) AND status IN ('validating', 'optimizing', 'running')`,
          [this.owner, ids],
        )
        .catch(() => {});
    }
  }
}
