/**
 * Core's optimize jobs on the shared quantum job system (platform/quantum-jobs): each circuit
 * is one job of service `core` that the optimizer prepares for the backend and the simulator
 * runs; evaluations are taken from the month's allowance in the same transaction that inserts
 * the jobs, so a refused submission stores and charges nothing; a completed job that asked
 * for evidence gets its signed bundle from the finished-job handler.
 */
import { newId } from '../../platform/identity/ids.ts';
import { bundleForSubject } from '../../platform/evidence/index.ts';
import {
  cancelJob,
  deviceQueueStats,
  getJob,
  getJobResult,
  listJobs,
  retryJob,
  startQuantumWorkers,
  type JobInput,
  type JobStatus,
  type QuantumJob,
  type QuantumWorkers,
  type TaskResult,
} from '../../platform/quantum-jobs/index.ts';
import { insertJob } from '../../platform/quantum-jobs/records.ts';
import type { ServiceContext } from '../../platform/service.ts';
import type { Database, Sql } from '../../platform/storage/database.ts';
import { sha3Hash } from '../../platform/evidence/index.ts';
import { backendIds } from './catalog.ts';
import { checkCircuit } from './circuit.ts';
import { CoreEvidence, type EvidenceSubject } from './evidence.ts';
import { takeEvaluations } from './limits.ts';
import type { CorePlan } from '../../platform/quantum-jobs/plans.ts';
import { notify } from '../../platform/storage/channels.ts';

const SERVICE = 'core';

export interface CoreInput extends JobInput {
  /** Issue a signed evidence bundle when the job completes. */
  evidence: boolean;
}

export interface CircuitRequest {
  qasm: string;
  backend: string;
  shots: number;
  level: 0 | 1 | 2 | 3;
  evidence: boolean;
}

export interface Submission {
  accountId: string;
  keyId: string;
  plan: CorePlan;
  batch: boolean;
  circuits: CircuitRequest[];
}

export interface CoreJobView {
  job_id: string;
  status: JobStatus;
  backend: string;
  shots: number;
  optimization_level: number;
  batch_id: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  execution_time_ms: number | null;
  attempts: number;
  circuit_hash: string;
  original_depth: number | null;
  optimized_depth: number | null;
  reduction_percent: number | null;
  original_gates: number | null;
  optimized_gates: number | null;
  optimized_circuit: string | null;
  results: { counts: Record<string, number>; probabilities: Record<string, number> } | null;
  evidence_bundle_id: string | null;
  error: { code: string; message: string } | null;
}

/** A Database whose statements run in an open transaction (so the job system's insert joins it). */
function inTransaction(db: Database, tx: Sql): Database {
  return { ...db, query: (text, params) => tx.query(text, params), transaction: (fn) => fn(tx) } as Database;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Fractions of the shots, rounded to 1e-6 (the measured frequencies of each outcome). */
export function probabilitiesOf(counts: Record<string, number>): Record<string, number> {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, total ? Math.round((v / total) * 1e6) / 1e6 : 0]));
}

/** What a completed job's bundle is made of. */
function subjectOf(job: QuantumJob<JobInput>, result: TaskResult, now: Date): EvidenceSubject {
  const input = job.input as CoreInput;
  return {
    jobId: job.id,
    accountId: job.accountId,
    qasm: input.task.qasm,
    backend: job.backend,
    shots: input.task.shots,
    optimizationLevel: input.task.optimizationLevel ?? 0,
    completedAt: job.finishedAt ?? now,
    executionTimeMs: result.execution_time_ms,
    counts: result.counts,
  };
}

/** Issues the bundle of a completed core job that asked for one (registered on the app's own workers, for its store). */
async function issueEvidence(ctx: ServiceContext, job: QuantumJob<JobInput>): Promise<void> {
  if (job.status !== 'completed' || !(job.input as CoreInput).evidence) return;
  const result = await getJobResult<TaskResult>(ctx, { service: SERVICE }, job.id);
  if (result) await new CoreEvidence(ctx).issue(subjectOf(job, result, ctx.now()));
}

export class CoreJobs {
  private constructor(
    private readonly ctx: ServiceContext,
    private readonly workers: QuantumWorkers,
    private readonly evidence: CoreEvidence,
  ) {}

  static async start(ctx: ServiceContext, evidence: CoreEvidence): Promise<CoreJobs> {
    const workers = await startQuantumWorkers(ctx);
    workers.onJobFinished(SERVICE, issueEvidence);
    return new CoreJobs(ctx, workers, evidence);
  }

  async stop(): Promise<void> {
    await this.workers.release();
  }

  /**
   * Checks every circuit, then takes the evaluations and inserts the jobs in one transaction:
   * all of them or none. Returns the jobs with their expected time to result.
   */
  async submit(s: Submission): Promise<{ batchId: string | null; jobs: { job_id: string; status: JobStatus; estimated_time: number }[] }> {
    s.circuits.forEach((c, i) => checkCircuit(c.qasm, c.backend, c.shots, s.batch ? `circuits[${i}]: ` : ''));
    const batchId = s.batch ? newId('batch') : null;
    const now = this.ctx.now();
    const rows = await this.ctx.db.transaction(async (tx) => {
      await takeEvaluations(tx, s.accountId, s.plan, s.circuits.length, now);
      const db = inTransaction(this.ctx.db, tx);
      const inserted: QuantumJob<JobInput>[] = [];
      for (const c of s.circuits) {
        const input: CoreInput = {
          task: { qasm: c.qasm, backend: c.backend, shots: c.shots, optimizationLevel: c.level, execute: true },
          evidence: c.evidence,
        };
        inserted.push(await insertJob<JobInput>(db, { service: SERVICE, accountId: s.accountId, keyId: s.keyId, kind: 'run', backend: c.backend, input, batchId }, now));
      }
      return inserted;
    });
    this.workers.runner.kick();
    if (this.ctx.db.kind === 'postgres') {
      for (const r of rows) await notify(this.ctx.db, 'quantum_jobs_new', r.id);
    }
    const estimates = await this.estimates([...new Set(rows.map((r) => r.backend))]);
    return { batchId, jobs: rows.map((r) => ({ job_id: r.id, status: r.status, estimated_time: estimates.get(r.backend) ?? 0 })) };
  }

  /** Seconds until a result on each backend: the queue's expected wait plus the backend's mean run, both measured. */
  private async estimates(backends: string[]): Promise<Map<string, number>> {
    const stats = await deviceQueueStats(this.ctx, backends);
    return new Map(backends.map((b) => {
      const q = stats.get(b);
      return [b, q ? Math.round((q.estimated_wait + q.average_run_minutes * 60) * 1000) / 1000 : 0];
    }));
  }

  /** Jobs waiting or running on each backend, every account and service together (they share the queues). */
  async queueDepths(): Promise<Record<string, number>> {
    const stats = await deviceQueueStats(this.ctx, backendIds());
    return Object.fromEntries([...stats.values()].map((q) => [q.backend, q.queue_length + q.running]));
  }

  async get(accountId: string, jobId: string): Promise<CoreJobView | null> {
    const scope = { service: SERVICE, accountId };
    const job = await getJob(this.ctx, scope, jobId);
    if (!job) return null;
    const result = job.status === 'completed' ? await getJobResult<TaskResult>(this.ctx, scope, jobId) : null;
    const input = job.input as CoreInput;
    let bundleId = job.status === 'completed' ? ((await bundleForSubject(this.ctx.db, { service: SERVICE, subjectId: jobId, accountId }))?.bundle_id ?? null) : null;
    // A read between the job's completion and its handler's bundle issues it itself (once per job).
    if (!bundleId && result && input.evidence) bundleId = await this.evidence.issue(subjectOf(job, result, this.ctx.now()));
    const task = input.task;
    const o = result?.optimization;
    return {
      job_id: job.id,
      status: job.status,
      backend: job.backend,
      shots: task.shots,
      optimization_level: task.optimizationLevel ?? 0,
      batch_id: job.batchId,
      created_at: job.createdAt.toISOString(),
      started_at: iso(job.startedAt),
      completed_at: iso(job.finishedAt),
      execution_time_ms: job.executionMs,
      attempts: job.attempts,
      circuit_hash: sha3Hash(task.qasm),
      original_depth: o?.original_depth ?? null,
      optimized_depth: o?.optimized_depth ?? null,
      reduction_percent: o?.depth_reduction_percent ?? null,
      original_gates: o?.original_gates ?? null,
      optimized_gates: o?.optimized_gates ?? null,
      optimized_circuit: o?.optimized_circuit ?? null,
      results: result ? { counts: result.counts, probabilities: probabilitiesOf(result.counts) } : null,
      evidence_bundle_id: bundleId,
      error: job.error ? { code: job.error.code, message: job.error.message } : null,
    };
  }

  async list(accountId: string, q: { status: JobStatus | null; limit: number; offset: number }) {
    const page = await listJobs(this.ctx, { service: SERVICE, accountId, status: q.status ?? undefined, limit: q.limit, offset: q.offset });
    return {
      total: page.total,
      jobs: page.jobs.map((j) => ({ job_id: j.id, status: j.status, created_at: j.createdAt.toISOString(), completed_at: iso(j.finishedAt) })),
    };
  }

  /** null: no such job of this account; otherwise whether this call cancelled it, and its status. */
  async cancel(accountId: string, jobId: string): Promise<{ cancelled: boolean; status: JobStatus } | null> {
    const outcome = await cancelJob(this.ctx, { service: SERVICE, accountId }, jobId);
    if (outcome.outcome === 'not_found') return null;
    return { cancelled: outcome.outcome === 'cancelled', status: outcome.job.status };
  }

  async retry(accountId: string, jobId: string): Promise<{ retried: boolean; status: JobStatus; attempts: number } | null> {
    const scope = { service: SERVICE, accountId };
    const job = await retryJob(this.ctx, scope, jobId);
    if (job) return { retried: true, status: job.status, attempts: job.attempts };
    const current = await getJob(this.ctx, scope, jobId);
    return current ? { retried: false, status: current.status, attempts: current.attempts } : null;
  }

  async batch(accountId: string, batchId: string) {
    const page = await listJobs(this.ctx, { service: SERVICE, accountId, batchId, limit: 1000, offset: 0 });
    if (page.total === 0) return null;
    const jobs = [...page.jobs].reverse();
    const counts: Record<string, number> = {};
    for (const j of jobs) counts[j.status] = (counts[j.status] ?? 0) + 1;
    const active = jobs.some((j) => ['queued', 'validating', 'optimizing', 'running'].includes(j.status));
    const status = active
      ? 'processing'
      : (counts.completed ?? 0) === jobs.length
        ? 'completed'
        : (counts.failed ?? 0) > 0
          ? 'failed'
          : (counts.completed ?? 0) > 0
            ? 'completed'
            : 'cancelled';
    return {
      batch_id: batchId,
      status,
      created_at: jobs[0]!.createdAt.toISOString(),
      total: page.total,
      counts,
      jobs: jobs.map((j) => ({ job_id: j.id, status: j.status, backend: j.backend })),
    };
  }

  /** The account's totals: every job, the completed ones, and their mean depth reduction. */
  async stats(accountId: string): Promise<{ total_jobs: number; total_circuits: number; avg_reduction: number | null }> {
    const [row] = await this.ctx.db.query<{ total: number | string; completed: number | string; avg: number | string | null; n: number | string }>(
      `SELECT count(*) AS total,
              count(*) FILTER (WHERE status = 'completed') AS completed,
              sum((result -> 'optimization' ->> 'depth_reduction_percent')::float8) FILTER (WHERE status = 'completed') AS avg,
              count(result -> 'optimization') FILTER (WHERE status = 'completed') AS n
         FROM quantum_jobs WHERE service = $1 AND account_id = $2`,
      [SERVICE, accountId],
    );
    let sum = Number(row?.avg ?? 0);
    let n = Number(row?.n ?? 0);
    // Large results are stored compressed, out of SQL's reach: read those few here.
    const compressed = await this.ctx.db.query<{ id: string }>(
      `SELECT id FROM quantum_jobs WHERE service = $1 AND account_id = $2 AND status = 'completed' AND result IS NULL AND result_gz IS NOT NULL`,
      [SERVICE, accountId],
    );
    for (const { id } of compressed) {
      const r = await getJobResult<TaskResult>(this.ctx, { service: SERVICE, accountId }, id);
      if (r?.optimization) {
        sum += r.optimization.depth_reduction_percent;
        n++;
      }
    }
    return {
      total_jobs: Number(row?.total ?? 0),
      total_circuits: Number(row?.completed ?? 0),
      avg_reduction: n ? Math.round((sum / n) * 100) / 100 : null,
    };
  }

  /** The circuit and counts behind a job's bundle, for verification (any account: the caller holds the bundle). */
  async evidenceInputs(jobId: string): Promise<{ qasm: string; counts: Record<string, number> | null } | null> {
    const job = await getJob(this.ctx, { service: SERVICE }, jobId);
    if (!job) return null;
    const result = job.status === 'completed' ? await getJobResult<TaskResult>(this.ctx, { service: SERVICE }, jobId) : null;
    return { qasm: (job.input as CoreInput).task.qasm, counts: result?.counts ?? null };
  }
}

