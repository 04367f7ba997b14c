/**
 * What platform work costs (CONTRACT "Prices", interface 5). Emulated devices cost their list
 * price from the catalog's one price list (`Backend.price`, engines/quantum/pricing.ts, the same
 * every quantum service reads, computed from the circuit as submitted): per shot plus a task fee
 * for suppliers A and C, per QPU minute of the device's gate schedule for supplier B. The
 * platform adds no fee to them. Simulators are free on the list; the platform charges its own
 * compute fee for them, $0.001 per simulated second, and CPU and GPU jobs per resource-hour of
 * what they request. A job is held for its worst case (all its shots, or its wall-clock limit)
 * and charged what it used. Amounts are whole micro-dollars, rounded up, so a charge never
 * falls below the work's price.
 */
import type { Backend } from '../../engines/quantum/backends.ts';
import { perShotMicros, qpuMinuteMicros, schedule } from '../../engines/quantum/pricing.ts';
import { parseQasm } from '../../engines/quantum/qasm/index.ts';
import { MICROS_PER_USD } from '../../platform/billing/index.ts';

/** The platform's compute fee for simulators (free on the catalog's list). */
export const SIMULATOR_USD_PER_SECOND = 0.001;
export const CPU_USD_PER_HOUR = 0.04;
export const MEMORY_USD_PER_GB_HOUR = 0.005;
export const GPU_USD_PER_HOUR = 2.5;

export type Price =
  | { basis: 'simulator_second'; usd_per_second: number; list_price_usd?: number; fee?: string }
  | { basis: 'device_qpu_time'; usd_per_minute: number; schedule_us: number; rep_delay_us: number; list_price_usd: number }
  | { basis: 'device_shot'; usd_per_shot: number; task_fee_usd: number }
  /** Recorded on device jobs accepted before list pricing (device run time per minute); read only. */
  | { basis: 'device_minute'; usd_per_minute: number }
  | { basis: 'resource_hour'; usd_per_hour: number; cpus: number; memory_gb: number; gpus: number };

/** The price of a circuit on a backend: the device's list price, or the platform's simulator fee. */
export function circuitPrice(b: Backend, qasm: string, shots: number): Price {
  const p = b.price;
  if (p.model === 'free') {
    return { basis: 'simulator_second', usd_per_second: SIMULATOR_USD_PER_SECOND, list_price_usd: 0, fee: 'platform compute fee per simulated second (simulators are free on the list)' };
  }
  if (p.model === 'per_shot') return { basis: 'device_shot', usd_per_shot: p.rate_per_shot, task_fee_usd: p.task_fee };
  const s = schedule(parseQasm(qasm), b);
  return {
    basis: 'device_qpu_time', usd_per_minute: p.rate_per_minute, schedule_us: s.duration_us, rep_delay_us: p.rep_delay_us,
    list_price_usd: qpuMinuteMicros(shots, s.duration_us, p.rep_delay_us, p.rate_per_minute) / MICROS_PER_USD,
  };
}

export function computePrice(r: { cpus: number; memory_gb: number; gpus: number }): Price {
  const perHour = r.cpus * CPU_USD_PER_HOUR + r.memory_gb * MEMORY_USD_PER_GB_HOUR + r.gpus * GPU_USD_PER_HOUR;
  return { basis: 'resource_hour', usd_per_hour: Math.round(perHour * 1e6) / 1e6, ...r };
}

const micros = (usd: number) => Math.ceil(usd * MICROS_PER_USD - 1e-9);

/**
 * The cost of `seconds` of work and `shots` shots. `reachedProvider` is false for work that
 * never started, which costs nothing (not even a task fee). A device is charged its list price
 * for the shots that ran (the engine returns shots only at the end of a run).
 */
export function costMicros(price: Price, use: { seconds: number; shots: number; reachedProvider: boolean }): number {
  if (!use.reachedProvider) return 0;
  const s = Math.max(0, use.seconds);
  switch (price.basis) {
    case 'simulator_second':
      return micros(s * price.usd_per_second);
    case 'device_qpu_time':
      return qpuMinuteMicros(use.shots, price.schedule_us, price.rep_delay_us, price.usd_per_minute);
    case 'device_shot':
      return perShotMicros(use.shots, price.usd_per_shot, price.task_fee_usd);
    case 'device_minute':
      return micros((s / 60) * price.usd_per_minute);
    case 'resource_hour':
      return micros((s / 3600) * price.usd_per_hour);
  }
}

/** The hold: the whole wall-clock limit and every shot. At least one micro-dollar, as a hold must be. */
export function worstCaseMicros(price: Price, limitSeconds: number, shots: number): number {
  return Math.max(1, costMicros(price, { seconds: limitSeconds, shots, reachedProvider: true }));
}
