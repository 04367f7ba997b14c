/**
 * The backend catalog as interface 1 shows it: the engine's catalog (CONTRACT: one catalog,
 * the same ids on every quantum service) with its published prices and live queue figures.
 */
import { listBackends, readBackend, type Backend } from '../../engines/quantum/backends.ts';
import { deviceQueueStats, type QueueStats } from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';

export type Pricing = { rate_per_minute: number; currency: 'USD' } | { rate_per_shot: number; task_fee: number; currency: 'USD' };

/**
 * The device's list price in interface 1's shapes, read from the catalog's one price list
 * (`Backend.price`, the same every quantum service reads): per QPU minute for the
 * superconducting devices of supplier B, per shot plus a per-task fee for suppliers A and C.
 * Simulators are free on the list (their time counts as simulation minutes of the plan).
 */
export function pricingOf(b: Backend): Pricing {
  const p = b.price;
  if (p.model === 'free') return { rate_per_minute: 0, currency: 'USD' };
  if (p.model === 'per_shot') return { rate_per_shot: p.rate_per_shot, task_fee: p.task_fee, currency: 'USD' };
  return { rate_per_minute: p.rate_per_minute, currency: 'USD' };
}

export function featuresOf(b: Backend): string[] {
  const f = [...b.simulation_methods, 'memory', 'seed_simulator', 'optimization'];
  if (b.type === 'hardware') f.push('calibrated_noise', 'fifo_queue', 'quality_metrics');
  return f;
}

export function backendItem(b: Backend, q: QueueStats | undefined) {
  return {
    id: b.id,
    provider: b.provider,
    name: b.name,
    qubits: b.qubits,
    status: 'online' as const,
    queue_length: q?.queue_length ?? 0,
    average_wait_minutes: q?.average_wait_minutes ?? 0,
    features: featuresOf(b),
    pricing: pricingOf(b),
  };
}

export function backendDetail(b: Backend, q: QueueStats | undefined) {
  return {
    ...backendItem(b, q),
    type: b.type,
    processor: b.type === 'simulator' ? `Lattice ${b.simulation_methods[0]} engine (CPU)` : `${b.name.replace(/ \(emulated\)$/, '')}, emulated with its calibration`,
    connectivity: b.coupling_map ? { type: 'coupling_map' as const, edges: b.coupling_map } : { type: 'all_to_all' as const, edges: [] },
    basis_gates: b.basis_gates,
    max_shots: b.max_shots,
    max_circuits: b.max_circuits,
    calibration: b.calibration
      ? {
          last_updated: b.calibration.last_updated,
          t1_us: b.calibration.t1_us,
          t2_us: b.calibration.t2_us,
          readout_error: b.calibration.readout_error,
          cx_error: b.calibration.cx_error,
        }
      : null,
    // Emulated devices have no maintenance windows: none is scheduled.
    maintenance: { next_scheduled: null, duration_hours: 0 },
    running_jobs: q?.running ?? 0,
    estimated_wait: q?.estimated_wait ?? 0,
  };
}

export async function catalogWithQueues(ctx: ServiceContext): Promise<Array<{ backend: Backend; queue: QueueStats | undefined }>> {
  const all = listBackends();
  const stats = await deviceQueueStats(ctx, all.map((b) => b.id));
  return all.map((b) => ({ backend: b, queue: stats.get(b.id) }));
}

/** The catalog's frozen entry (engines/quantum/backends.ts readBackend): read it, do not change it. */
export function findBackend(id: string): Readonly<Backend> | undefined {
  return readBackend(id);
}
