/**
 * What a run costs on each supplier: the device's list price from the catalog's one price list
 * (`Backend.price`, engines/quantum/pricing.ts, the formula every quantum service applies to the
 * circuit as submitted), in each supplier's own terms, plus the one fee this service adds:
 *  - A (per AQT): on the emulated trapped-ion device one AQT is one shot, at the list's price
 *    per shot, plus the list's task fee. No fee added.
 *  - B (per quantum second): the list price per QPU minute is $1.60 per quantum second; the
 *    QPU time is shots x (the ASAP schedule of one shot + 250 us repetition delay). Supplier B
 *    adds a job set-up fee, 1 quantum second ($1.60) per job, shown as `setup_fee_usd`.
 *  - C (per shot plus task fee): the list's per-shot price and task fee. No fee added.
 * Simulators cost nothing on interface 2 (as on interfaces 1, 3 and 6).
 */
import { getBackend, type Backend } from '../../engines/quantum/backends.ts';
import { listPrice } from '../../engines/quantum/pricing.ts';
import { usdToMicros } from '../../platform/billing/index.ts';
import { CLASS_DEVICE, type SupplierTarget } from './catalog.ts';
import type { CircuitInfo } from './circuit.ts';

function classPrice<M extends 'per_shot' | 'per_qpu_minute'>(id: string, model: M) {
  const p = getBackend(id)?.price;
  if (!p || p.model !== model) throw new Error(`catalog device ${id} has no ${model} list price`);
  return p as Extract<NonNullable<typeof p>, { model: M }>;
}

const A = classPrice(CLASS_DEVICE.supplier_a_quantum, 'per_shot');
const B = classPrice(CLASS_DEVICE.supplier_b_quantum, 'per_qpu_minute');
const C = classPrice(CLASS_DEVICE.supplier_c, 'per_shot');

/** Each supplier's rates, read from the catalog's list prices; B's set-up second is this service's own fee. */
export const RATES = {
  supplier_a_quantum: { ratePerAqt: A.rate_per_shot, aqtPerShot: 1, taskFeeUsd: A.task_fee },
  supplier_b_quantum: { usdPerQuantumSecond: B.rate_per_minute / 60, setupSeconds: 1, repDelaySeconds: B.rep_delay_us / 1e6 },
  supplier_c: { perShotUsd: C.rate_per_shot, taskFeeUsd: C.task_fee },
} as const;

/** Supplier B's job set-up fee in US dollars: one quantum second per job. */
export const SETUP_FEE_USD = RATES.supplier_b_quantum.setupSeconds * RATES.supplier_b_quantum.usdPerQuantumSecond;

export type CostModel = 'per_aqt' | 'per_second' | 'per_shot' | 'free';

export interface Estimate {
  costModel: CostModel;
  usd: number;
  micros: number;
  /** The device's list price (engines/quantum/pricing.ts) within `usd`; the rest is this service's fee. */
  listMicros: number;
  /** Supplier A. */
  aqt?: number;
  /** Supplier B. */
  quantumSeconds?: number;
  breakdown: Record<string, number | string>;
}

const round = (x: number, places = 6) => Math.round(x * 10 ** places) / 10 ** places;

function device(target: SupplierTarget): Backend {
  const b = getBackend(target.backend);
  if (!b) throw new Error(`no catalog device ${target.backend}`);
  return b;
}

/** What a run of `info` with `shots` shots costs on `target`. */
export function estimate(target: SupplierTarget, info: CircuitInfo, shots: number): Estimate {
  if (target.type === 'simulator' || target.supplier === 'hpc_gpu') {
    return { costModel: 'free', usd: 0, micros: 0, listMicros: 0, breakdown: { shots, rate_usd: 0 } };
  }
  const list = listPrice(device(target), info.circuit, shots);
  const listUsd = list.micros / 1e6;
  switch (target.supplier) {
    case 'supplier_a_quantum': {
      const r = RATES.supplier_a_quantum;
      const aqt = shots * r.aqtPerShot;
      return {
        costModel: 'per_aqt', usd: listUsd, micros: list.micros, listMicros: list.micros, aqt,
        breakdown: { aqt, rate_per_aqt: r.ratePerAqt, aqt_per_shot: r.aqtPerShot, task_fee_usd: r.taskFeeUsd, shots, list_price_usd: listUsd, supplier_fee_usd: 0 },
      };
    }
    case 'supplier_b_quantum': {
      const r = RATES.supplier_b_quantum;
      const qpuSeconds = Number(list.basis.qpu_seconds);
      const quantumSeconds = round(r.setupSeconds + qpuSeconds, 6);
      const micros = list.micros + usdToMicros(SETUP_FEE_USD);
      return {
        costModel: 'per_second', usd: micros / 1e6, micros, listMicros: list.micros, quantumSeconds,
        breakdown: {
          list_price_usd: listUsd, setup_fee_usd: SETUP_FEE_USD, quantum_seconds: quantumSeconds, qpu_seconds: qpuSeconds,
          usd_per_quantum_second: r.usdPerQuantumSecond, seconds_per_shot: round((Number(list.basis.schedule_us) + Number(list.basis.rep_delay_us)) / 1e6, 9),
          setup_seconds: r.setupSeconds, shots,
        },
      };
    }
    case 'supplier_c': {
      const r = RATES.supplier_c;
      return {
        costModel: 'per_shot', usd: listUsd, micros: list.micros, listMicros: list.micros,
        breakdown: { per_shot: r.perShotUsd, task_fee: r.taskFeeUsd, shots, list_price_usd: listUsd, supplier_fee_usd: 0 },
      };
    }
  }
}

/** The cost model a supplier's devices use (simulators are free). */
export function costModelOf(target: SupplierTarget): CostModel {
  if (target.type === 'simulator' || target.supplier === 'hpc_gpu') return 'free';
  return target.supplier === 'supplier_a_quantum' ? 'per_aqt' : target.supplier === 'supplier_b_quantum' ? 'per_second' : 'per_shot';
}

/** The fixed part of a task's cost (the `/pricing` table's minimum charge): a task fee, or B's set-up fee. */
export function minimumCharge(target: SupplierTarget): number {
  switch (costModelOf(target)) {
    case 'free':
      return 0;
    case 'per_aqt':
      return RATES.supplier_a_quantum.taskFeeUsd;
    case 'per_second':
      return SETUP_FEE_USD;
    case 'per_shot':
      return RATES.supplier_c.taskFeeUsd;
  }
}
