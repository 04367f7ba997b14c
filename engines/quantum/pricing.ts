/**
 * What a run costs at a device's list price (`Backend.price` in the catalog): the one formula
 * every quantum service applies, so the same job (circuit, shots, device) has the same list
 * price everywhere. A service that adds a fee of its own adds it on top and says so.
 *
 * The price is computed from the circuit as submitted, never from one service's optimizer
 * output (services optimize at different levels; a list price must not depend on which one
 * ran). `per_qpu_minute`: QPU time = shots x (one shot's ASAP schedule on the device's
 * calibrated gate and readout times + the repetition delay), as superconducting suppliers bill
 * it. `per_shot`: the task fee plus the shots. Amounts are whole micro-dollars rounded up, so a
 * charge never falls below the work's price.
 */
import type { Backend, DevicePrice } from './backends.ts';
import type { Circuit } from './circuit.ts';
import { parseQasm } from './qasm/index.ts';

/** Gates that are frame changes in software on these devices: no pulse, no time. */
const VIRTUAL = new Set(['rz', 'p', 'u1', 'id', 'barrier']);

export interface Schedule {
  qubits: number;
  gates_1q: number;
  /** Two-qubit gates, a gate on k >= 3 qubits counting as its 6 (k - 2) two-qubit decomposition. */
  gates_2q: number;
  measurements: number;
  /** Length of one shot's pulse schedule (as soon as possible on every qubit), microseconds. */
  duration_us: number;
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/** ASAP schedule of one shot of the circuit with the device's calibrated gate and readout times. */
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
      const n = op.qubits.length === 2 ? 1 : 6 * (op.qubits.length - 2);
      out.gates_2q += n;
      occupy(op.qubits, n * t2);
    } else if (op.kind === 'gate' && VIRTUAL.has(op.name)) occupy(op.qubits, 0);
    else {
      out.gates_1q++;
      occupy(op.qubits, t1);
    }
  }
  return { ...out, duration_us: round(Math.max(0, ...ready), 6) };
}

export interface ListPrice {
  model: DevicePrice['model'];
  /** Whole micro-dollars, rounded up. */
  micros: number;
  usd: number;
  /** The price, the figures taken from the circuit and the formula. */
  basis: Record<string, unknown>;
}

/** Micro-dollars of `shots` shots of a per-shot list price, rounded up (the one rounding every service applies). */
export function perShotMicros(shots: number, ratePerShot: number, taskFee: number): number {
  return Math.ceil(round((taskFee + shots * ratePerShot) * 1e6, 3));
}

/** Micro-dollars of `shots` shots of QPU time at a per-minute list price, rounded up. */
export function qpuMinuteMicros(shots: number, scheduleUs: number, repDelayUs: number, ratePerMinute: number): number {
  const qpuSeconds = (shots * (scheduleUs + repDelayUs)) / 1e6;
  return Math.ceil(round((qpuSeconds / 60) * ratePerMinute * 1e6, 3));
}

/** The catalog's list price of the device (free for a simulator). */
export function devicePrice(b: Backend): DevicePrice {
  return b.price;
}

/** The list price of running `circuit` (OpenQASM text or parsed) `shots` times on `b`. */
export function listPrice(b: Backend, circuit: string | Circuit, shots: number): ListPrice {
  const price = b.price;
  if (price.model === 'free') {
    return { model: 'free', micros: 0, usd: 0, basis: { model: 'free', backend_id: b.id, shots, currency: 'USD', formula: '0 (simulators are free on the list)' } };
  }
  const parsed = typeof circuit === 'string' ? parseQasm(circuit) : circuit;
  const s = schedule(parsed, b);
  const figures = { qubits: s.qubits, gates_1q: s.gates_1q, gates_2q: s.gates_2q, measurements: s.measurements };
  if (price.model === 'per_shot') {
    const micros = perShotMicros(shots, price.rate_per_shot, price.task_fee);
    return {
      model: 'per_shot',
      micros,
      usd: micros / 1e6,
      basis: {
        model: 'per_shot', backend_id: b.id, provider: b.provider, shots, currency: 'USD',
        rate_per_shot_usd: price.rate_per_shot, task_fee_usd: price.task_fee, circuit: figures,
        formula: 'task_fee_usd + shots * rate_per_shot_usd',
      },
    };
  }
  const qpuSeconds = (shots * (s.duration_us + price.rep_delay_us)) / 1e6;
  const micros = qpuMinuteMicros(shots, s.duration_us, price.rep_delay_us, price.rate_per_minute);
  return {
    model: 'per_qpu_minute',
    micros,
    usd: micros / 1e6,
    basis: {
      model: 'per_qpu_minute', backend_id: b.id, provider: b.provider, shots, currency: 'USD',
      rate_per_minute_usd: price.rate_per_minute, circuit: figures,
      schedule_us: s.duration_us, rep_delay_us: price.rep_delay_us, qpu_seconds: round(qpuSeconds, 6),
      formula: 'shots * (schedule_us + rep_delay_us) / 1e6 / 60 * rate_per_minute_usd',
    },
  };
}
