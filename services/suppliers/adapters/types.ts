/** The one interface every supplier adapter implements, emulated or speaking a supplier's API. */
import type { SupplierTarget } from '../catalog.ts';
import type { CircuitInfo } from '../circuit.ts';
import type { SupplierId } from '../config.ts';
import type { JobResult, JobState, SupplierJob } from '../store.ts';

export interface Submitted {
  quantumJobId?: string;
  remoteId?: string;
  remoteStatus?: string;
}

/** A job's state as the supplier reports it now, in our words (the routes translate back). */
export interface Observed {
  status: JobState;
  remoteStatus?: string | null;
  result?: JobResult | null;
  error?: { code: string; message: string } | null;
  resultLocation?: string | null;
}

export interface SupplierAdapter {
  readonly supplier: SupplierId;
  /** `remote`: credentials configured; `emulated`: catalog devices on our simulators; `disabled`: neither. */
  readonly mode: 'remote' | 'emulated' | 'disabled';
  targets(): Promise<SupplierTarget[]>;
  submit(job: SupplierJob, info: CircuitInfo, target: SupplierTarget): Promise<Submitted>;
  observe(job: SupplierJob): Promise<Observed>;
  /** Cancels a job that has not started; `not_cancellable` when it already runs or ended. */
  cancel(job: SupplierJob): Promise<'cancelled' | 'not_cancellable'>;
}
