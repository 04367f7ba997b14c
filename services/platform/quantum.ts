/**
 * QUANTUM_CIRCUIT workloads on the shared quantum job system: the quantum job carries the
 * platform job's id (one id for both rows), runs with the workload's wall-clock limit, and
 * when it ends (completed, failed or cancelled, in whichever process ran it) the platform job
 * is closed with what it measured: a completed run settles its measured cost; a cancelled one
 * settles what ran (device time, or the task fee once a shot-priced device took the task) and
 * releases the rest; a failure releases everything, except a run stopped at its wall-clock
 * limit, which used all of it.
 */
import {
  getJob,
  prepareCircuit,
  submitJob,
  TaskFailure,
  type Optimization,
  type QuantumJob,
  type TaskResult,
} from '../../platform/quantum-jobs/index.ts';
import { getBackend } from '../../engines/quantum/backends.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { platformError } from './errors.ts';
import { costMicros } from './pricing.ts';
import { finishJob } from './settle.ts';
import { selectJobWithRunResult, type PlatformJob, type UsageMetrics } from './store.ts';
import type { Workload } from './workload.ts';

export const SERVICE = 'platform';

type Circuit = NonNullable<Workload['circuit']>;

function task(c: Circuit) {
  return { qasm: c.qasm, backend: c.backend, shots: c.shots, optimizationLevel: 1 as const, execute: true, seed: c.seed ?? undefined, qualityMetrics: false };
}

/**
 * Validates and optimizes the circuit for its backend off the event loop; its problems are
 * 400s and change nothing. The optimization travels with the job so the run does not redo it.
 */
export async function checkCircuit(ctx: ServiceContext, c: Circuit): Promise<Optimization | undefined> {
  try {
    return (await prepareCircuit(ctx, task(c))).optimization;
  } catch (err) {
    if (err instanceof TaskFailure) {
      if (err.code === 'INVALID_BACKEND') throw platformError('invalid_backend', err.message, err.details ?? {});
      throw platformError('invalid_circuit', err.message, err.details ?? {});
    }
    throw err;
  }
}

/** Puts the job on the quantum queue (after its row and hold are committed); repair queues it without `prepared`. */
export async function startCircuit(ctx: ServiceContext, job: PlatformJob, prepared?: Optimization): Promise<void> {
  const c = job.workload.circuit!;
  const device = getBackend(c.backend)?.type === 'hardware';
  await submitJob(ctx, {
    id: job.id,
    service: SERVICE,
    accountId: job.accountId,
    keyId: job.keyId,
    kind: 'run',
    backend: c.backend,
    input: { task: { ...task(c), prepared } },
    minutesKind: device ? 'quantum' : 'simulation',
    holdMinutes: job.workload.max_runtime_seconds / 60,
  }).catch((err: { code?: string }) => {
    // Queued already (by repair in another process): one quantum job per platform job.
    if (err.code !== '23505') throw err;
  });
}

const seconds = (from: Date | null, to: Date | null) => (from && to ? Math.max(0, (to.getTime() - from.getTime()) / 1000) : null);

/** Closes the platform job of a quantum job that ended; a no-op when it is already closed. */
export async function onCircuitFinished(ctx: ServiceContext, q: QuantumJob<unknown>): Promise<void> {
  const found = await selectJobWithRunResult<TaskResult>(ctx.db, q.id);
  if (!found || !['QUEUED', 'RUNNING', 'CANCEL_REQUESTED'].includes(found.job.status)) return;
  const job = found.job;
  const c = job.workload.circuit!;
  const device = getBackend(c.backend)?.type === 'hardware';
  const finishedAt = q.finishedAt ?? ctx.now();
  const runStart = q.runStartedAt ?? q.startedAt;
  // The engine measures to the microsecond: more digits would be floating-point noise of the division.
  const execSeconds = q.executionMs === null ? null : Math.round(q.executionMs * 1000) / 1e6;
  const usage = (ranShots: number | null, engineSeconds: number | null): UsageMetrics => ({
    queue_time_seconds: seconds(q.createdAt, q.startedAt ?? finishedAt),
    wall_clock_seconds: seconds(q.startedAt, finishedAt),
    qpu_seconds: device ? engineSeconds : null,
    simulator_seconds: device ? null : engineSeconds,
    shots: ranShots,
    cpus: null,
    memory_gb: null,
    gpus: null,
    gpu_available: null,
  });
  if (q.status === 'completed') {
    const r = found.result;
    const ran = execSeconds ?? 0;
    await finishJob(ctx, job, {
      status: 'SETTLED',
      costMicros: costMicros(job.price, { seconds: ran, shots: c.shots, reachedProvider: true }),
      usage: usage(c.shots, ran),
      result: r
        ? { counts: r.counts, shots: r.shots, backend: c.backend, num_qubits: r.num_qubits, method: r.method, seed: r.seed, execution_time_ms: r.execution_time_ms }
        : { counts: {}, shots: 0, backend: c.backend },
      startedAt: q.startedAt,
      finishedAt,
    });
    return;
  }
  if (q.status === 'cancelled') {
    // The engine samples every shot at the end of a run: a run stopped early produced none.
    const ranSeconds = q.runStartedAt ? seconds(q.runStartedAt, finishedAt) ?? 0 : 0;
    await finishJob(ctx, job, {
      status: 'CANCELLED',
      costMicros: costMicros(job.price, { seconds: ranSeconds, shots: 0, reachedProvider: q.runStartedAt !== null }),
      usage: usage(0, q.runStartedAt ? ranSeconds : null),
      result: null,
      startedAt: q.startedAt,
      finishedAt,
    });
    return;
  }
  if (q.status === 'failed') {
    const timedOut = q.error?.code === 'TIME_LIMIT_EXCEEDED';
    const limit = job.workload.max_runtime_seconds;
    await finishJob(ctx, job, {
      status: 'FAILED',
      costMicros: timedOut ? costMicros(job.price, { seconds: limit, shots: 0, reachedProvider: runStart !== null }) : 0,
      usage: usage(0, timedOut ? limit : null),
      result: null,
      error: { code: q.error?.code ?? 'EXECUTION_ERROR', message: q.error?.message ?? 'the run failed' },
      startedAt: q.startedAt,
      finishedAt,
    });
  }
}

/** The quantum job behind a platform job (null when it was never queued: a crash between commit and submit). */
export function quantumJobOf(ctx: ServiceContext, job: PlatformJob) {
  return getJob(ctx, { service: SERVICE, accountId: job.accountId }, job.id);
}
