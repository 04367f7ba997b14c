/**
 * Each supplier's cost model, computed from the circuit itself:
 *  - A (per AQT): aqt = shots x (one-qubit gates + 5 x two-qubit gates), at $0.0002 per AQT,
 *    at least $1.00 per task on a device.
 *  - B (per quantum second): shots x (the ASAP-scheduled duration of one shot on the device's
 *    gate and readout times + 250 us repetition delay) + 1 s of job set-up, at $1.60 per
 *    quantum second ($96 per QPU minute, the price interface 1 shows).
 *  - C (per shot plus task fee): $0.00035 per shot and $0.30 per task on the QPU.
 * Simulators cost nothing on interface 2 (as on interfaces 1, 3 and 6).
 */
import { getBackend } from '../../engines/quantum/index.ts';
import { usdToMicros } from '../../platform/billing/index.ts';
import type { SupplierTarget } from './catalog.ts';
import { shotSeconds, type CircuitInfo } from './circuit.ts';

export const RATES = {
  supplier_a_quantum: { ratePerAqt: 0.0002, twoQubitWeight: 5, minimumUsd: 1.0 },
  supplier_b_quantum: { usdPerQuantumSecond: 1.6, setupSeconds: 1, repDelaySeconds: 250e-6 },
  supplier_c: { perShotUsd: 0.00035, taskFeeUsd: 0.3 },
} as const;

export type CostModel = 'per_aqt' | 'per_second' | 'per_shot' | 'free';

export interface Estimate {
  costModel: CostModel;
  usd: number;
  micros: number;
  /** Supplier A. */
  aqt?: number;
  /** Supplier B. */
  quantumSeconds?: number;
  breakdown: Record<string, number | string>;
}

const round = (x: number, places = 6) => Math.round(x * 10 ** places) / 10 ** places;

function done(costModel: CostModel, usd: number, extra: Omit<Estimate, 'costModel' | 'usd' | 'micros'>): Estimate {
  const rounded = round(usd);
  return { costModel, usd: rounded, micros: usdToMicros(rounded), ...extra };
}

/** What a run of `info` with `shots` shots costs on `target`. */
export function estimate(target: SupplierTarget, info: CircuitInfo, shots: number): Estimate {
  if (target.type === 'simulator') {
    return done('free', 0, { breakdown: { shots, rate_usd: 0 } });
  }
  switch (target.supplier) {
    case 'supplier_a_quantum': {
      const r = RATES.supplier_a_quantum;
      const aqt = shots * (info.oneQubitGates + r.twoQubitWeight * info.twoQubitGates);
      const usd = Math.max(r.minimumUsd, aqt * r.ratePerAqt);
      return done('per_aqt', usd, {
        aqt,
        breakdown: {
          aqt, rate_per_aqt: r.ratePerAqt, one_qubit_gates: info.oneQubitGates, two_qubit_gates: info.twoQubitGates,
          two_qubit_weight: r.twoQubitWeight, shots, minimum_charge_usd: r.minimumUsd,
        },
      });
    }
    case 'supplier_b_quantum': {
      const r = RATES.supplier_b_quantum;
      const cal = getBackend(target.backend)?.calibration;
      if (!cal) throw new Error(`no calibration for ${target.backend}`);
      const perShot = shotSeconds(info, cal) + r.repDelaySeconds;
      const quantumSeconds = round(r.setupSeconds + shots * perShot, 6);
      return done('per_second', quantumSeconds * r.usdPerQuantumSecond, {
        quantumSeconds,
        breakdown: { quantum_seconds: quantumSeconds, usd_per_quantum_second: r.usdPerQuantumSecond, seconds_per_shot: round(perShot, 9), setup_seconds: r.setupSeconds, shots },
      });
    }
    case 'supplier_c': {
      const r = RATES.supplier_c;
      return done('per_shot', shots * r.perShotUsd + r.taskFeeUsd, { breakdown: { per_shot: r.perShotUsd, task_fee: r.taskFeeUsd, shots } });
    }
    case 'hpc_gpu':
      return done('free', 0, { breakdown: { shots, rate_usd: 0 } });
  }
}

/** The cost model a supplier's devices use (simulators are free). */
export function costModelOf(target: SupplierTarget): CostModel {
  if (target.type === 'simulator' || target.supplier === 'hpc_gpu') return 'free';
  return target.supplier === 'supplier_a_quantum' ? 'per_aqt' : target.supplier === 'supplier_b_quantum' ? 'per_second' : 'per_shot';
}

/** The least a task on the target costs (the `/pricing` table's minimum charge). */
export function minimumCharge(target: SupplierTarget): number {
  if (costModelOf(target) === 'free') return 0;
  if (target.supplier === 'supplier_a_quantum') return RATES.supplier_a_quantum.minimumUsd;
  if (target.supplier === 'supplier_b_quantum') return RATES.supplier_b_quantum.setupSeconds * RATES.supplier_b_quantum.usdPerQuantumSecond;
  return RATES.supplier_c.taskFeeUsd;
}
