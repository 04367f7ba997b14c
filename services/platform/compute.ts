/**
 * The runner of CPU_JOB and GPU_JOB workloads in this process: it claims queued jobs from the
 * store (any process on the store may take any of them, `FOR UPDATE SKIP LOCKED`), runs each
 * in the sandbox with at most `slots` at once, renews its claim every second while the job
 * runs (which is also how it learns of a cancel requested through another process), and
 * closes the job with what it measured. A job whose claim lapses belongs to a dead process:
 * repair closes it (repair.ts).
 *
 * Charges: a command that ran is settled to its wall-clock time x the resources it asked for,
 * whatever its exit code (a timeout used the whole limit); a cancelled one to the time it ran;
 * a program that could not be started is FAILED and charged nothing.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../platform/service.ts';
import { costMicros } from './pricing.ts';
import { runSandboxed, type SandboxOutcome, type SandboxRun } from './sandbox.ts';
import { finishJob } from './settle.ts';
import { claimCompute, renewLease, type PlatformJob } from './store.ts';

export const LEASE_MS = 15_000;
const HEARTBEAT_MS = 1000;
const POLL_MS = 1000;

/**
 * Owners whose runner is alive in this process (an embedded store belongs to one process),
 * added at a runner's start and removed at its stop. Process-wide on purpose: it answers
 * "is the process that claimed this job still here?", so repair by any app of the process
 * leaves alone the jobs that another app's runner of the same process is running.
 */
export const liveOwners = new Set<string>();

export class ComputeRunner {
  readonly owner = `platform@${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly active = new Map<string, SandboxRun>();
  private poll: NodeJS.Timeout | null = null;
  private claiming = false;
  private again = false;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly ctx: ServiceContext,
    readonly slots: number,
  ) {}

  start(): void {
    liveOwners.add(this.owner);
    this.poll = setInterval(() => this.kick(), POLL_MS);
    this.poll.unref();
    this.kick();
  }

  activeCount(): number {
    return this.active.size;
  }

  /** Claims queued jobs while a slot is free. */
  kick(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    void (async () => {
      try {
        do {
          this.again = false;
          while (!this.stopped && this.active.size < this.slots) {
            const now = this.ctx.now();
            const job = await claimCompute(this.ctx.db, this.owner, now, new Date(now.getTime() + LEASE_MS));
            if (!job) break;
            this.run(job);
          }
        } while (this.again && !this.stopped);
      } catch (err) {
        if (!this.stopped) process.emitWarning(`platform compute runner: ${(err as Error).message}`);
      } finally {
        this.claiming = false;
      }
    })();
  }

  /** Stops a job this process runs (a cancel): true when it was here. */
  cancelLocal(id: string): boolean {
    const run = this.active.get(id);
    run?.cancel();
    return run !== undefined;
  }

  private run(job: PlatformJob): void {
    const c = job.workload.compute!;
    const sandbox = runSandboxed({ argv: c.argv, setup: c.setup, cpus: c.cpus, memoryGb: c.memory_gb, gpus: c.gpus, timeoutMs: job.workload.max_runtime_seconds * 1000 });
    this.active.set(job.id, sandbox);
    const heartbeat = setInterval(() => {
      const now = this.ctx.now();
      void renewLease(this.ctx.db, job.id, this.owner, new Date(now.getTime() + LEASE_MS))
        .then((status) => {
          if (status === 'CANCEL_REQUESTED' || status === null) sandbox.cancel();
        })
        .catch(() => {});
    }, HEARTBEAT_MS);
    heartbeat.unref();
    const p = sandbox.done
      .then((out) => (this.stopped ? undefined : this.close(job, out)))
      .catch((err) => process.emitWarning(`platform job ${job.id}: could not record its end: ${(err as Error).message}`))
      .finally(() => {
        clearInterval(heartbeat);
        this.active.delete(job.id);
        this.running.delete(p);
        this.kick();
      });
    this.running.add(p);
  }

  private async close(job: PlatformJob, out: SandboxOutcome): Promise<void> {
    const c = job.workload.compute!;
    const finishedAt = this.ctx.now();
    const wall = out.timed_out ? job.workload.max_runtime_seconds : out.wall_ms / 1000;
    const usage = {
      queue_time_seconds: job.startedAt ? Math.max(0, (job.startedAt.getTime() - job.createdAt.getTime()) / 1000) : null,
      wall_clock_seconds: Math.round(wall * 1000) / 1000,
      qpu_seconds: null,
      simulator_seconds: null,
      shots: null,
      cpus: c.cpus,
      memory_gb: c.memory_gb,
      gpus: c.gpus,
      gpu_available: out.gpu_available,
    };
    const result = {
      exit_code: out.exit_code,
      signal: out.signal,
      timed_out: out.timed_out,
      failed_phase: out.failed_phase,
      stdout: out.stdout,
      stderr: out.stderr,
      stdout_truncated: out.stdout_truncated,
      stderr_truncated: out.stderr_truncated,
      gpu_available: out.gpu_available,
    };
    if (out.spawn_error) {
      await finishJob(this.ctx, job, {
        status: 'FAILED', costMicros: 0, usage, result, startedAt: job.startedAt, finishedAt,
        error: { code: 'command_not_started', message: out.spawn_error },
      });
      return;
    }
    const cost = costMicros(job.price, { seconds: wall, shots: 0, reachedProvider: true });
    await finishJob(this.ctx, job, {
      status: out.cancelled ? 'CANCELLED' : 'SETTLED',
      costMicros: cost,
      usage,
      result: out.cancelled ? { ...result, cancelled: true } : result,
      startedAt: job.startedAt,
      finishedAt,
    });
  }

  /**
   * Stops the runner. Running commands are killed and their rows left as they are, exactly as
   * if the process had died: the next start (or another process, once the claim lapses)
   * repairs them. That keeps one path for every way a process can end.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    liveOwners.delete(this.owner);
    for (const run of this.active.values()) run.cancel();
    await Promise.allSettled([...this.running]);
  }
}
