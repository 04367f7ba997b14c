/**
 * What platform work costs (CONTRACT "Prices", interface 5): simulators per simulated second,
 * emulated devices at their supplier's published price (the same list prices interface 1
 * shows: per QPU minute for supplier B's devices, per shot plus a task fee for A and C), CPU
 * and GPU jobs per resource-hour of what they request. A job is held for its worst case (its
 * wall-clock limit, all its shots) and charged what it measured. Amounts are whole
 * micro-dollars, rounded up, so a charge never falls below the work's price.
 */
import type { Backend } from '../../engines/quantum/backends.ts';
import { MICROS_PER_USD } from '../../platform/billing/index.ts';

export const SIMULATOR_USD_PER_SECOND = 0.001;
export const CPU_USD_PER_HOUR = 0.04;
export const MEMORY_USD_PER_GB_HOUR = 0.005;
export const GPU_USD_PER_HOUR = 2.5;

export type Price =
  | { basis: 'simulator_second'; usd_per_second: number }
  | { basis: 'device_minute'; usd_per_minute: number }
  | { basis: 'device_shot'; usd_per_shot: number; task_fee_usd: number }
  | { basis: 'resource_hour'; usd_per_hour: number; cpus: number; memory_gb: number; gpus: number };

export function circuitPrice(b: Backend): Price {
  if (b.type === 'simulator') return { basis: 'simulator_second', usd_per_second: SIMULATOR_USD_PER_SECOND };
  if (b.provider === 'supplier_a_quantum') return { basis: 'device_shot', usd_per_shot: 0.03, task_fee_usd: 0.3 };
  if (b.provider === 'supplier_c') return { basis: 'device_shot', usd_per_shot: 0.00035, task_fee_usd: 0.3 };
  return { basis: 'device_minute', usd_per_minute: 96 };
}

export function computePrice(r: { cpus: number; memory_gb: number; gpus: number }): Price {
  const perHour = r.cpus * CPU_USD_PER_HOUR + r.memory_gb * MEMORY_USD_PER_GB_HOUR + r.gpus * GPU_USD_PER_HOUR;
  return { basis: 'resource_hour', usd_per_hour: Math.round(perHour * 1e6) / 1e6, ...r };
}

const micros = (usd: number) => Math.ceil(usd * MICROS_PER_USD - 1e-9);

/**
 * The cost of `seconds` of work and `shots` shots. `reachedProvider` is false for work that
 * never started, which costs nothing (not even a task fee).
 */
export function costMicros(price: Price, use: { seconds: number; shots: number; reachedProvider: boolean }): number {
  if (!use.reachedProvider) return 0;
  const s = Math.max(0, use.seconds);
  switch (price.basis) {
    case 'simulator_second':
      return micros(s * price.usd_per_second);
    case 'device_minute':
      return micros((s / 60) * price.usd_per_minute);
    case 'device_shot':
      return micros(price.task_fee_usd + use.shots * price.usd_per_shot);
    case 'resource_hour':
      return micros((s / 3600) * price.usd_per_hour);
  }
}

/** The hold: the whole wall-clock limit and every shot. At least one micro-dollar, as a hold must be. */
export function worstCaseMicros(price: Price, limitSeconds: number, shots: number): number {
  return Math.max(1, costMicros(price, { seconds: limitSeconds, shots, reachedProvider: true }));
}
