/** How each supplier's routes show a job: status words, ids and result fields in that supplier's style. */
import type { SupplierId } from './config.ts';
import type { JobState, SupplierJob } from './store.ts';

/** Supplier C speaks upper case (QUEUED, COMPLETED); the others lower case. */
export function statusWord(supplier: SupplierId, s: JobState): string {
  return supplier === 'supplier_c' ? s.toUpperCase() : s;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
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
    result: job.result ? { counts: job.result.counts, shots: job.result.shots, execution_time: job.result.execution_time } : null,
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
    storage_result_location: job.resultLocation,
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
          execution_time_seconds: job.result.execution_time,
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
