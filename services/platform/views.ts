/**
 * The platform job as the API shows it. Spec fields: `billing_mode`, `result_verified` (true
 * only when SETTLED with both the result hash and the evidence hash recorded), `usage_metrics`
 * (measured, on closed jobs); the rest is what a client needs to follow its money and work:
 * the workload as accepted, the price basis, the reservation and the charge.
 */
import { Type } from 'typebox';
import { microsToUsd } from '../../platform/billing/index.ts';
import { sha3Hash } from '../../platform/evidence/index.ts';
import type { PlatformJob, PlatformStatus } from './store.ts';

export const TERMINAL: readonly string[] = ['SETTLED', 'CANCELLED', 'FAILED'];

function reservationStatus(job: PlatformJob): 'none' | 'open' | 'settled' | 'released' {
  if (job.billingMode !== 'PREPAID') return 'none';
  if (!TERMINAL.includes(job.status)) return 'open';
  return job.status === 'SETTLED' || (job.chargedMicros ?? 0) > 0 ? 'settled' : 'released';
}

export function workloadView(job: PlatformJob) {
  const w = job.workload;
  const c = w.circuit;
  const k = w.compute;
  return {
    type: w.type,
    backend: c?.backend ?? null,
    shots: c?.shots ?? null,
    seed: c?.seed ?? null,
    qasm_hash: c ? sha3Hash(c.qasm) : null,
    artifact_uri: c?.artifact_uri ?? null,
    command: k?.argv ?? null,
    setup: k?.setup ?? null,
    cpus: k?.cpus ?? null,
    memory_gb: k?.memory_gb ?? null,
    num_gpus: k?.gpus ?? null,
    gpu: k?.gpu ?? null,
    max_runtime_seconds: w.max_runtime_seconds,
    ...w.labels,
  };
}

/** `live` overrides the stored status of an open job with what its quantum job is doing now. */
export function jobView(job: PlatformJob, live?: { status: PlatformStatus; startedAt: Date | null }) {
  const status = live?.status ?? job.status;
  const charged = job.chargedMicros === null ? null : microsToUsd(job.chargedMicros);
  const held = microsToUsd(job.heldMicros);
  return {
    id: job.id,
    job_id: job.id,
    status: status as string,
    type: job.type as string,
    billing_mode: job.billingMode as string,
    plan: job.plan,
    idempotency_key: job.idempotencyKey,
    workload: workloadView(job),
    price: job.price as unknown as Record<string, unknown>,
    reservation: {
      status: reservationStatus(job),
      held_usd: held,
      charged_usd: job.billingMode === 'PREPAID' ? charged : null,
      released_usd: job.billingMode === 'PREPAID' && charged !== null ? microsToUsd(job.heldMicros - (job.chargedMicros ?? 0)) : null,
    },
    charged_usd: charged,
    invoiced: job.billingMode === 'PAYGO' && charged !== null,
    usage_metrics: job.usageMetrics as unknown as Record<string, unknown> | null,
    result: job.result,
    result_hash: job.resultHash,
    evidence_hash: job.evidenceHash,
    evidence_bundle_id: job.evidenceBundleId,
    result_verified: job.status === 'SETTLED' && job.resultHash !== null && job.evidenceHash !== null,
    error: job.error,
    created_at: job.createdAt.toISOString(),
    started_at: (live?.startedAt ?? job.startedAt)?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    settled_at: job.settledAt?.toISOString() ?? null,
    cancel_requested_at: job.cancelRequestedAt?.toISOString() ?? null,
  };
}

/** An unknown or another account's id (spec: 200 with status `not_found`, never 404, never a leak). */
export function notFoundView(id: string) {
  return { id, job_id: id, status: 'not_found' as const };
}

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const PlatformJobOut = Type.Object(
  {
    id: Type.String(),
    job_id: Type.String(),
    status: Type.String({ enum: ['QUEUED', 'RUNNING', 'CANCEL_REQUESTED', 'SETTLED', 'CANCELLED', 'FAILED', 'not_found'] }),
    type: Type.Optional(Type.String({ enum: ['QUANTUM_CIRCUIT', 'GPU_JOB', 'CPU_JOB'] })),
    billing_mode: Type.Optional(Type.String({ enum: ['FREE', 'PREPAID', 'PAYGO'] })),
    plan: Type.Optional(Type.String()),
    idempotency_key: Type.Optional(nullable(Type.String())),
    workload: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    price: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The price basis the job was held and charged at' })),
    reservation: Type.Optional(Type.Object({
      status: Type.String({ enum: ['none', 'open', 'settled', 'released'] }),
      held_usd: Type.Number(),
      charged_usd: nullable(Type.Number()),
      released_usd: nullable(Type.Number()),
    })),
    charged_usd: Type.Optional(nullable(Type.Number())),
    invoiced: Type.Optional(Type.Boolean({ description: 'PAYGO: the charge goes on the monthly invoice' })),
    usage_metrics: Type.Optional(nullable(Type.Record(Type.String(), Type.Unknown()))),
    result: Type.Optional(nullable(Type.Record(Type.String(), Type.Unknown()))),
    result_hash: Type.Optional(nullable(Type.String())),
    evidence_hash: Type.Optional(nullable(Type.String())),
    evidence_bundle_id: Type.Optional(nullable(Type.String())),
    result_verified: Type.Optional(Type.Boolean()),
    error: Type.Optional(nullable(Type.Object({ code: Type.String(), message: Type.String() }))),
    created_at: Type.Optional(Type.String({ format: 'date-time' })),
    started_at: Type.Optional(nullable(Type.String())),
    finished_at: Type.Optional(nullable(Type.String())),
    settled_at: Type.Optional(nullable(Type.String())),
    cancel_requested_at: Type.Optional(nullable(Type.String())),
  },
  { $id: 'PlatformJob', description: 'A platform job; `status: not_found` alone for an unknown or foreign id.' },
);
