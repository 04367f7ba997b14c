/**
 * A supplier emulated on the catalog's devices: each job is a job of the shared quantum job
 * system (service `suppliers`), so it waits in its device's FIFO queue, runs off the event
 * loop with the device's calibrated noise, survives restarts and is cancelled there.
 */
import { cancelJob, getJobWithResult, submitJob, type TaskResult } from '../../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../../platform/service.ts';
import { emulatedTargets, type SupplierTarget } from '../catalog.ts';
import type { CircuitInfo } from '../circuit.ts';
import type { SupplierId } from '../config.ts';
import type { SupplierJob } from '../store.ts';
import { secondsOfMs } from '../views.ts';
import type { Observed, Submitted, SupplierAdapter } from './types.ts';

export const SERVICE = 'suppliers';
/** Wall-clock limit of one emulated run, in minutes. */
export const MAX_RUN_MINUTES = 5;

export class EmulatedAdapter implements SupplierAdapter {
  readonly mode = 'emulated' as const;
  constructor(
    readonly supplier: SupplierId,
    private readonly ctx: ServiceContext,
  ) {}

  async targets(): Promise<SupplierTarget[]> {
    return emulatedTargets(this.supplier);
  }

  async submit(job: SupplierJob, _info: CircuitInfo, target: SupplierTarget): Promise<Submitted> {
    const device = target.type === 'qpu';
    const q = await submitJob(this.ctx, {
      id: job.quantumJobId ?? undefined,
      service: SERVICE,
      accountId: job.accountId,
      keyId: job.keyId,
      kind: 'run',
      backend: target.backend,
      batchId: job.batchId,
      // A device run is mapped onto the device's native gates and coupling map (level 1);
      // a simulator runs the circuit exactly as given.
      input: { task: { qasm: job.qasm, backend: target.backend, shots: job.shots, optimizationLevel: device ? 1 : null, execute: true }, supplier: this.supplier, supplier_job: job.id },
      minutesKind: device ? 'quantum' : 'simulation',
      holdMinutes: MAX_RUN_MINUTES,
    });
    return { quantumJobId: q.id };
  }

  async observe(job: SupplierJob): Promise<Observed> {
    const found = job.quantumJobId ? await getJobWithResult<TaskResult>(this.ctx, { service: SERVICE, accountId: job.accountId }, job.quantumJobId) : null;
    if (!found) return { status: 'failed', error: { code: 'JOB_FAILED', message: 'The job system has no record of this job' } };
    const { job: q, result } = found;
    switch (q.status) {
      case 'queued':
        return { status: 'queued', remoteStatus: q.status };
      case 'validating':
      case 'optimizing':
      case 'running':
        return { status: 'running', remoteStatus: q.status };
      case 'cancelled':
        return { status: 'cancelled', remoteStatus: q.status };
      case 'failed':
        return { status: 'failed', remoteStatus: q.status, error: { code: 'JOB_FAILED', message: q.error?.message ?? 'Execution failed' } };
      case 'completed':
        return {
          status: 'completed',
          remoteStatus: q.status,
          result: result && {
            counts: result.counts,
            shots: result.shots,
            execution_time: secondsOfMs(result.execution_time_ms),
            num_qubits: result.num_qubits,
            optimization: result.optimization
              ? {
                  original_depth: result.optimization.original_depth,
                  optimized_depth: result.optimization.optimized_depth,
                  original_gates: result.optimization.original_gates,
                  optimized_gates: result.optimization.optimized_gates,
                  depth_reduction_percent: result.optimization.depth_reduction_percent,
                  gate_reduction_percent: result.optimization.gate_reduction_percent,
                }
              : null,
            seed: result.seed,
          },
        };
    }
  }

  async cancel(job: SupplierJob): Promise<'cancelled' | 'not_cancellable'> {
    if (!job.quantumJobId) return 'not_cancellable';
    const found = await getJobWithResult(this.ctx, { service: SERVICE, accountId: job.accountId }, job.quantumJobId);
    // Only a job still waiting in its queue may be cancelled (the spec's rule); the cancel itself
    // names that state too, so a job a worker starts between the two reads keeps running.
    if (!found || found.job.status !== 'queued') return 'not_cancellable';
    const out = await cancelJob(this.ctx, { service: SERVICE, accountId: job.accountId }, job.quantumJobId, ['queued']);
    return out.outcome === 'cancelled' ? 'cancelled' : 'not_cancellable';
  }
}
