/**
 * What a runtime job costs (CONTRACT "Prices": on the runtime, simulators cost no money; a job
 * on an emulated device, the real-QPU class, costs its supplier's published price and waits
 * for approval). The estimate is computed from the circuit as it will run (transpiled for the
 * device), the shots and the device's price; the charge at settlement uses the same formula on
 * what actually ran, so an estimate is exact unless the run differs from the plan.
 *
 * Prices are the suppliers' list prices for their class of device, the same the other quantum
 * services publish for the catalog: per QPU minute for supplier B's superconducting devices
 * (QPU time from the gate schedule), per shot plus a per-task fee for suppliers A and C.
 */
import { parseQasm, type Backend, type Circuit } from '../../engines/quantum/index.ts';

export type Price =
  | { model: 'per_qpu_minute'; rate_per_minute: number; currency: 'USD' }
  | { model: 'per_shot'; rate_per_shot: number; task_fee: number; currency: 'USD' };

/** The device's price, or null for a simulator (free on the runtime). */
export function priceOf(b: Backend): Price | null {
  if (b.type === 'simulator') return null;
  if (b.provider === 'supplier_a_quantum') return { model: 'per_shot', rate_per_shot: 0.03, task_fee: 0.3, currency: 'USD' };
  if (b.provider === 'supplier_c') return { model: 'per_shot', rate_per_shot: 0.00035, task_fee: 0.3, currency: 'USD' };
  return { model: 'per_qpu_minute', rate_per_minute: 96, currency: 'USD' };
}

/**
 * Wait between two shots while the qubits relax back to |0> (the default repetition delay of
 * superconducting runtimes); counted as QPU time, as those suppliers bill it.
 */
export const REP_DELAY_US = 250;

/** Gates that are frame changes in software on these devices: no pulse, no time. */
const VIRTUAL = new Set(['rz', 'p', 'u1', 'id', 'barrier']);

export interface Schedule {
  qubits: number;
  gates_1q: number;
  gates_2q: number;
  measurements: number;
  /** Length of one shot's pulse schedule (as-soon-as-possible on every qubit), microseconds. */
  duration_us: number;
}

/** ASAP schedule of the circuit with the device's calibrated gate and readout times. */
export function schedule(circuit: Circuit, b: Backend): Schedule {
  const cal = b.calibration;
  const t1 = (cal?.gate_time_1q_ns ?? 0) / 1000;
  const t2 = (cal?.gate_time_2q_ns ?? 0) / 1000;
  const tm = (cal?.readout_time_ns ?? 0) / 1000;
  const ready = new Array<number>(circuit.numQubits).fill(0);
  const out = { qubits: circuit.numQubits, gates_1q: 0, gates_2q: 0, measurements: 0 };
  const occupy = (qubits: number[], length: number) => {
    const start = Math.max(0, ...qubits.map((q) => ready[q] ?? 0));
    for (const q of qubits) ready[q] = start + length;
  };
  for (const op of circuit.ops) {
    if (op.kind === 'barrier') occupy(op.qubits, 0);
    else if (op.kind === 'measure' || op.kind === 'reset') {
      out.measurements += op.kind === 'measure' ? 1 : 0;
      occupy([op.qubit], tm);
    } else if (op.qubits.length >= 2) {
      out.gates_2q++;
      occupy(op.qubits, t2);
    } else if (op.kind === 'gate' && VIRTUAL.has(op.name)) occupy(op.qubits, 0);
    else {
      out.gates_1q++;
      occupy(op.qubits, t1);
    }
  }
  return { ...out, duration_us: round(Math.max(0, ...ready), 6) };
}

export interface Estimate {
  /** Whole micro-dollars, rounded up: what is held on approval. */
  micros: number;
  usd: number;
  basis: Record<string, unknown>;
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * The cost of running `qasm` (the circuit as the device will run it) `shots` times on `b`.
 * `cost_basis` names the model, the price, the figures taken from the circuit and the formula.
 */
export function estimate(b: Backend, qasm: string, shots: number): Estimate {
  const price = priceOf(b);
  if (!price) {
    return {
      micros: 0,
      usd: 0,
      basis: { model: 'simulator', backend_id: b.id, shots, currency: 'USD', formula: '0 (simulators cost no money on the runtime)' },
    };
  }
  const s = schedule(parseQasm(qasm), b);
  const circuit = { qubits: s.qubits, gates_1q: s.gates_1q, gates_2q: s.gates_2q, measurements: s.measurements };
  if (price.model === 'per_shot') {
    const usd = price.task_fee + shots * price.rate_per_shot;
    const micros = Math.ceil(round(usd * 1e6, 3));
    return {
      micros,
      usd: micros / 1e6,
      basis: {
        model: 'per_shot', backend_id: b.id, provider: b.provider, shots, currency: 'USD',
        rate_per_shot_usd: price.rate_per_shot, task_fee_usd: price.task_fee, circuit,
        formula: 'task_fee_usd + shots * rate_per_shot_usd',
      },
    };
  }
  const shotUs = s.duration_us + REP_DELAY_US;
  const qpuSeconds = (shots * shotUs) / 1e6;
  const micros = Math.ceil(round((qpuSeconds / 60) * price.rate_per_minute * 1e6, 3));
  return {
    micros,
    usd: micros / 1e6,
    basis: {
      model: 'per_qpu_minute', backend_id: b.id, provider: b.provider, shots, currency: 'USD',
      rate_per_minute_usd: price.rate_per_minute, circuit,
      schedule_us: s.duration_us, rep_delay_us: REP_DELAY_US, qpu_seconds: round(qpuSeconds, 6),
      formula: 'shots * (schedule_us + rep_delay_us) / 1e6 / 60 * rate_per_minute_usd',
    },
  };
}
