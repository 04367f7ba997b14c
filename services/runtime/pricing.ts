/**
 * What a runtime job costs (CONTRACT "Prices": on the runtime, simulators cost no money; a job
 * on an emulated device, the real-QPU class, costs the device's list price and waits for
 * approval). The price list and the formula are the engine's (`engines/quantum/pricing.ts`,
 * `Backend.price` in the catalog), the same every quantum service reads, applied to the
 * circuit as submitted: the same job costs the same on every service. The runtime adds no fee.
 * The charge at settlement is the same formula on the same circuit and the shots that ran, so
 * the estimate is what a completed job is charged.
 */
import type { Backend } from '../../engines/quantum/backends.ts';
import { listPrice, schedule } from '../../engines/quantum/pricing.ts';

export { schedule };

export type Price =
  | { model: 'per_qpu_minute'; rate_per_minute: number; currency: 'USD' }
  | { model: 'per_shot'; rate_per_shot: number; task_fee: number; currency: 'USD' };

/** The device's list price in the runtime's words, or null for a simulator (free on the runtime). */
export function priceOf(b: Backend): Price | null {
  const p = b.price;
  if (p.model === 'free') return null;
  if (p.model === 'per_shot') return { model: 'per_shot', rate_per_shot: p.rate_per_shot, task_fee: p.task_fee, currency: 'USD' };
  return { model: 'per_qpu_minute', rate_per_minute: p.rate_per_minute, currency: 'USD' };
}

/** Wait between two shots while the qubits relax back to |0>, billed as QPU time (the catalog's `rep_delay_us` of supplier B's devices). */
export const REP_DELAY_US = 250;

export interface Estimate {
  /** Whole micro-dollars, rounded up: what is held on approval. */
  micros: number;
  usd: number;
  basis: Record<string, unknown>;
}

/**
 * The cost of running `qasm` (the circuit as submitted) `shots` times on `b`. `cost_basis`
 * names the model, the price, the figures taken from the circuit and the formula.
 */
export function estimate(b: Backend, qasm: string, shots: number): Estimate {
  const p = listPrice(b, qasm, shots);
  if (p.model === 'free') {
    return { micros: 0, usd: 0, basis: { model: 'simulator', backend_id: b.id, shots, currency: 'USD', formula: '0 (simulators cost no money on the runtime)' } };
  }
  return { micros: p.micros, usd: p.usd, basis: { ...p.basis, fees_usd: 0 } };
}
