/**
 * Noise models built from backend calibration: depolarizing after each gate (from the gate
 * errors), amplitude damping (T1) and phase damping (T2) over each gate's duration, and a
 * symmetric readout error. Channels are given as Kraus operators (2x2 matrices).
 */
import type { Backend } from './backends.ts';
import type { Rng } from './sampling.ts';

export interface NoiseModel {
  /** Depolarizing probability p of ρ → (1-p)ρ + p I/2 after every one-qubit gate. */
  depol1: number;
  /** Depolarizing probability p of ρ → (1-p)ρ + p I/4 after every two-qubit gate. */
  depol2: number;
  t1_us: number;
  t2_us: number;
  gate_time_1q_ns: number;
  gate_time_2q_ns: number;
  readout_error: number;
}

export function isNoiseModel(x: unknown): x is NoiseModel {
  return typeof x === 'object' && x !== null && 'depol1' in x && 'depol2' in x;
}

/**
 * The noise model of a calibrated backend. An average gate error r on d dimensions is a
 * depolarizing probability p = r d / (d - 1).
 */
export function noiseFromBackend(b: Backend): NoiseModel {
  const cal = b.calibration;
  if (!cal) throw new Error(`backend '${b.id}' is an ideal simulator and has no noise model`);
  return {
    depol1: Math.min(1, cal.sq_error * 2),
    depol2: Math.min(1, (cal.cx_error * 4) / 3),
    t1_us: cal.t1_us,
    t2_us: Math.min(cal.t2_us, 2 * cal.t1_us),
    gate_time_1q_ns: cal.gate_time_1q_ns,
    gate_time_2q_ns: cal.gate_time_2q_ns,
    readout_error: cal.readout_error,
  };
}

/** Damping parameters over `ns` nanoseconds: amplitude γ = 1 - e^{-t/T1}, phase λ with total coherence decay e^{-t/T2}. */
export function dampingParams(m: NoiseModel, ns: number): { gamma: number; lambda: number } {
  const t = ns / 1000;
  const gamma = m.t1_us > 0 && Number.isFinite(m.t1_us) ? 1 - Math.exp(-t / m.t1_us) : 0;
  // 1/Tφ = 1/T2 - 1/(2 T1); phase damping keeps coherence sqrt(1-λ) = e^{-t/Tφ}.
  const invTphi = Math.max(0, 1 / m.t2_us - 1 / (2 * m.t1_us));
  const lambda = 1 - Math.exp(-2 * t * invTphi);
  return { gamma, lambda };
}

/** Kraus operators (interleaved complex 2x2) of amplitude damping then phase damping. */
export function thermalKraus(gamma: number, lambda: number): Float64Array[] {
  const ad = [
    Float64Array.of(1, 0, 0, 0, 0, 0, Math.sqrt(1 - gamma), 0),
    Float64Array.of(0, 0, Math.sqrt(gamma), 0, 0, 0, 0, 0),
  ];
  const pd = [
    Float64Array.of(1, 0, 0, 0, 0, 0, Math.sqrt(1 - lambda), 0),
    Float64Array.of(0, 0, 0, 0, 0, 0, Math.sqrt(lambda), 0),
  ];
  const out: Float64Array[] = [];
  for (const p of pd) for (const a of ad) out.push(mul2(p, a));
  return out.filter((k) => k.some((x) => x !== 0));
}

function mul2(a: Float64Array, b: Float64Array): Float64Array {
  const o = new Float64Array(8);
  for (let i = 0; i < 2; i++) {
    for (let j = 0; j < 2; j++) {
      let re = 0;
      let im = 0;
      for (let k = 0; k < 2; k++) {
        const ar = a[2 * (2 * i + k)]!, ai = a[2 * (2 * i + k) + 1]!, br = b[2 * (2 * k + j)]!, bi = b[2 * (2 * k + j) + 1]!;
        re += ar * br - ai * bi;
        im += ar * bi + ai * br;
      }
      o[2 * (2 * i + j)] = re;
      o[2 * (2 * i + j) + 1] = im;
    }
  }
  return o;
}

/** Duration of a gate acting on `arity` qubits. */
export function gateTimeNs(m: NoiseModel, arity: number): number {
  return arity >= 2 ? m.gate_time_2q_ns : m.gate_time_1q_ns;
}

/**
 * One trajectory's depolarizing errors after a gate on `qubits`: which Pauli (0 X, 1 Y, 2 Z)
 * lands on which qubit. (1-p)ρ + p I/2 = (1 - 3p/4)ρ + p/4 (XρX + YρY + ZρZ), and on two
 * qubits the same over the 15 non-identity Pauli pairs; gates on more qubits draw per
 * neighbouring pair. One uniform per draw, so a seed gives the same errors everywhere.
 */
export function drawDepolarizingPaulis(qubits: number[], noise: NoiseModel, rng: Rng): Array<{ pauli: number; qubit: number }> {
  const out: Array<{ pauli: number; qubit: number }> = [];
  if (qubits.length === 1) {
    const u = rng.next();
    if (u < (3 * noise.depol1) / 4) out.push({ pauli: Math.floor(u / (noise.depol1 / 4)), qubit: qubits[0]! });
    return out;
  }
  for (let j = 0; j + 1 < qubits.length; j++) {
    const u = rng.next();
    if (u >= (15 * noise.depol2) / 16) continue;
    const which = 1 + Math.floor(u / (noise.depol2 / 16));
    if (which >> 2) out.push({ pauli: (which >> 2) - 1, qubit: qubits[j + 1]! });
    if (which & 3) out.push({ pauli: (which & 3) - 1, qubit: qubits[j]! });
  }
  return out;
}

/** Symmetric readout error: each recorded bit flips with probability e (one uniform per bit when e > 0). */
export function flipReadout(bits: Uint8Array, clbits: Iterable<number>, e: number, rng: Rng): void {
  if (e <= 0) return;
  for (const b of clbits) if (rng.next() < e) bits[b] = 1 - bits[b]!;
}
