/** How each supplier's routes show a job: status words, ids and result fields in that supplier's style. */
import type { SupplierId } from './config.ts';
import { DEFAULT_BUCKET, locationOf, taskDirectory } from './objects.ts';
import type { JobState, SupplierJob } from './store.ts';

/** Supplier C speaks upper case (QUEUED, COMPLETED); the others lower case. */
export function statusWord(supplier: SupplierId, s: JobState): string {
  return supplier === 'supplier_c' ? s.toUpperCase() : s;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * A duration in seconds from one in milliseconds, to the microsecond: the engine measures run
 * time to the microsecond (and remote suppliers to the millisecond), so more digits would be
 * binary-division noise (0.461 ms / 1000 is 0.00046100000000000004 in floating point).
 */
export function secondsOfMs(ms: number): number {
  return Math.round(ms * 1000) / 1e6;
}

/** A stored duration in seconds shown to the microsecond (rows written before rounding included). */
const secs = (s: number | null | undefined) => (typeof s === 'number' ? Math.round(s * 1e6) / 1e6 : null);
const usd = (micros: number | null) => (micros === null ? null : micros / 1e6);

function common(job: SupplierJob) {
  return {
    created_at: iso(job.createdAt),
    completed_at: iso(job.completedAt),
    estimated_cost_usd: usd(job.estimatedMicros),
    cost_usd: usd(job.chargedMicros),
    ...(job.error ? { error: { error_code: 'JOB_FAILED', detail: job.error.message } } : {}),
  };
}

export function supplierAView(job: SupplierJob) {
  return {
    job_id: job.publicId,
    status: statusWord(job.supplier, job.status),
    provider: job.provider,
    target: job.target,
    result: job.result ? { counts: job.result.counts, shots: job.result.shots } : null,
    estimated_cost: usd(job.estimatedMicros),
    ...common(job),
  };
}

export function supplierBView(job: SupplierJob) {
  return {
    job_id: job.publicId,
    status: statusWord(job.supplier, job.status),
    backend: job.target,
    result: job.result ? { counts: job.result.counts, shots: job.result.shots, execution_time: secs(job.result.execution_time) } : null,
    ...common(job),
  };
}

export function supplierCView(job: SupplierJob) {
  return {
    task_id: job.publicId,
    status: statusWord(job.supplier, job.status),
    device: job.target,
    shots: job.shots,
    result: job.result ? { counts: job.result.counts, shots: job.result.shots } : null,
    // Emulated, the task's directory in the local object store (objects.ts), named from the request's
    // bucket and prefix like the supplier's own; its results.json is written when the task completes.
    storage_result_location: job.resultLocation ?? (job.mode === 'emulated' ? locationOf(job.storageBucket ?? DEFAULT_BUCKET, taskDirectory(job.storagePrefix, job.publicId)) : null),
    ...common(job),
  };
}

/** The legacy HPC GPU status: the simulator runs on the CPU of this host (no GPU is used). */
export function legacyView(job: SupplierJob) {
  return {
    job_id: job.publicId,
    status: statusWord(job.supplier, job.status),
    result: job.result
      ? {
          counts: job.result.counts,
          num_qubits: job.result.num_qubits,
          shots: job.result.shots,
          execution_time_seconds: secs(job.result.execution_time),
          backend: 'hpc_gpu',
          device: 'cpu',
        }
      : null,
    created_at: iso(job.createdAt),
    completed_at: iso(job.completedAt),
    ...(job.error ? { error: { error_code: 'JOB_FAILED', detail: job.error.message } } : {}),
  };
}

export function viewFor(job: SupplierJob) {
  switch (job.supplier) {
    case 'supplier_a_quantum':
      return supplierAView(job);
    case 'supplier_b_quantum':
      return supplierBView(job);
    case 'supplier_c':
      return supplierCView(job);
    case 'hpc_gpu':
      return legacyView(job);
  }
}
