/** The runtime's answers: the submit response of the spec and the job as GET shows it. */
import { Type } from 'typebox';
import { getHold } from '../../platform/billing/index.ts';
import type { QuantumJob, TaskResult } from '../../platform/quantum-jobs/index.ts';
import type { Sql } from '../../platform/storage/database.ts';
import type { RuntimeJob } from './records.ts';

const usd = (micros: number | null) => (micros === null ? null : micros / 1e6);
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const NullableNum = Type.Union([Type.Number(), Type.Null()]);
const NullableDate = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const CostBasis = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
  description: 'How the estimate was computed: `model` (simulator, per_shot, per_qpu_minute), the price, the figures taken from the transpiled circuit and the `formula`. Null while an async job is being validated.',
});

export const STATUSES = ['validating', 'awaiting_approval', 'queued', 'optimizing', 'running', 'completed', 'failed', 'cancelled'] as const;

export const SubmitOut = Type.Object(
  {
    job_id: Type.String(),
    status: Type.String({ enum: [...STATUSES] }),
    backend_id: Type.String(),
    shots: Type.Integer(),
    estimated_cost_usd: NullableNum,
    cost_basis: CostBasis,
    credits_required: Type.Union([Type.Number(), Type.Null()], { description: 'US dollars the approval holds on the prepaid balance (0 for a free job).' }),
    approval_required: Type.Boolean(),
    approval_token: Type.Union([Type.String(), Type.Null()], { description: 'Shown once: pass it to POST .../approve. Null when no approval is needed.' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'RuntimeSubmit' },
);

export function submitView(job: RuntimeJob, status: string, token: string | null) {
  return {
    job_id: job.id,
    status,
    backend_id: job.backendId,
    shots: job.shots,
    estimated_cost_usd: usd(job.estimatedMicros),
    cost_basis: job.costBasis,
    credits_required: usd(job.estimatedMicros),
    approval_required: job.approvalRequired,
    approval_token: token,
    created_at: job.createdAt.toISOString(),
  };
}

export const JobOut = Type.Object(
  {
    job_id: Type.String(),
    status: Type.String({ enum: [...STATUSES] }),
    mode: Type.String({ enum: ['sync', 'async'] }),
    backend_id: Type.String(),
    shots: Type.Integer(),
    estimated_cost_usd: NullableNum,
    cost_basis: CostBasis,
    credits_required: NullableNum,
    approval_required: Type.Boolean(),
    approved_at: NullableDate,
    billing: Type.Object({
      hold_status: Type.String({ enum: ['none', 'open', 'settled', 'released'] }),
      held_usd: Type.Number(),
      charged_usd: Type.Number(),
    }),
    created_at: Type.String({ format: 'date-time' }),
    started_at: NullableDate,
    completed_at: NullableDate,
    error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Record(Type.String(), Type.Unknown())) })),
    result: Type.Optional(
      Type.Object({
        counts: Type.Record(Type.String(), Type.Integer()),
        shots: Type.Integer(),
        num_qubits: Type.Integer(),
        execution_time_ms: Type.Number(),
        seed: Type.Union([Type.Integer(), Type.Null()]),
      }),
    ),
  },
  { $id: 'RuntimeJob' },
);

/** The job system's `validating` (a worker took the job) shows as `running`: the runtime checked the circuit at submission. */
function runStatus(run: QuantumJob<unknown>): string {
  return run.status === 'validating' ? 'running' : run.status;
}

export function statusOf(job: RuntimeJob, run: QuantumJob<unknown> | null): string {
  if (job.phase !== 'submitted') return job.phase;
  return run ? runStatus(run) : 'queued';
}

export async function jobView(db: Sql, job: RuntimeJob, run: QuantumJob<unknown> | null, result: TaskResult | null) {
  const hold = job.holdId ? await getHold(db, job.holdId) : null;
  const error = job.error ?? run?.error ?? null;
  return {
    job_id: job.id,
    status: statusOf(job, run),
    mode: job.mode,
    backend_id: job.backendId,
    shots: job.shots,
    estimated_cost_usd: usd(job.estimatedMicros),
    cost_basis: job.costBasis,
    credits_required: usd(job.estimatedMicros),
    approval_required: job.approvalRequired,
    approved_at: iso(job.approvedAt),
    billing: {
      hold_status: hold ? hold.status : 'none',
      held_usd: hold && hold.status === 'open' ? hold.amountMicros / 1e6 : 0,
      charged_usd: usd(hold?.chargedMicros ?? 0)!,
    },
    created_at: job.createdAt.toISOString(),
    started_at: iso(run?.startedAt),
    completed_at: iso(run?.finishedAt ?? job.finishedAt),
    ...(error ? { error } : {}),
    ...(run?.status === 'completed' && result
      ? { result: { counts: result.counts, shots: result.shots, num_qubits: result.num_qubits, execution_time_ms: result.execution_time_ms, seed: result.seed } }
      : {}),
  };
}
