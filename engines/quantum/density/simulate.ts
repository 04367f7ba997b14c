/**
 * Density-matrix simulation with a noise model: each gate is followed by depolarizing noise
 * and T1/T2 damping over its duration; measurements and resets act on ρ; classical
 * conditions are handled by keeping one (unnormalised) ρ per classical record.
 */
import type { Circuit, Condition, Operation } from '../circuit.ts';
import { opMatrix } from '../qasm/modifiers.ts';
import type { NoiseModel } from '../noise.ts';
import { applyChannelDM, applyUnitaryDM, diagonalOf, projectDM } from './channels.ts';
import { gateNoiseChannels } from './gate-noise.ts';
import { MAX_NATIVE_DENSITY_QUBITS, densityMatrixNative, nativeDensityAvailable } from './native.ts';

/** The largest density matrix allocated (4^12 amplitudes = 256 MiB). */
export const MAX_DENSITY_QUBITS = 12;

/**
 * Throws when n qubits are too many for the density_matrix method: 14 on the native kernels
 * (circuits without mid-circuit measurement or conditions), 12 otherwise.
 */
export function checkDensitySize(n: number, branching = true): void {
  const limit = !branching && nativeDensityAvailable() ? MAX_NATIVE_DENSITY_QUBITS : MAX_DENSITY_QUBITS;
  if (n > limit) {
    throw new Error(`${n} qubits is too many for the density_matrix method (at most ${limit}${branching ? ' with mid-circuit measurement or conditions' : ''}); use statevector with noise (trajectories)`);
  }
}

export function zeroDM(n: number): Float64Array {
  checkDensitySize(n);
  const rho = new Float64Array(2 * 4 ** n);
  rho[0] = 1;
  return rho;
}

/** Apply the noise that follows `op` on its qubits. */
export function applyGateNoise(rho: Float64Array, n: number, qubits: number[], noise: NoiseModel): void {
  for (const ch of gateNoiseChannels(qubits, noise)) applyChannelDM(rho, n, ch.qubits, ch);
}

/** Apply a unitary op (and its noise). */
export function applyOpDM(rho: Float64Array, n: number, op: Operation, noise?: NoiseModel): void {
  if (op.kind === 'barrier') return;
  if (op.kind !== 'gate' && op.kind !== 'unitary') throw new Error(`applyOpDM cannot apply a ${op.kind}`);
  if (op.kind === 'gate' && op.name !== 'id') applyUnitaryDM(rho, n, op.qubits, opMatrix(op));
  if (op.kind === 'unitary') applyUnitaryDM(rho, n, op.qubits, op.matrix);
  if (noise) applyGateNoise(rho, n, op.qubits, noise);
}

/** Reset qubit q to |0>: Kraus |0><0| and |0><1|. */
export function resetDM(rho: Float64Array, n: number, q: number): void {
  applyChannelDM(rho, n, [q], [Float64Array.of(1, 0, 0, 0, 0, 0, 0, 0), Float64Array.of(0, 0, 1, 0, 0, 0, 0, 0)]);
}

/**
 * The density matrix at the end of a circuit (no classical conditions). Measurements act as
 * non-selective measurements (their outcome is not kept); terminal ones leave the diagonal unchanged.
 *
 * @example densityMatrix(parseQasm(bell), noiseFromBackend(getBackend('lattice_line_5')!))
 */
export function densityMatrix(c: Circuit, noise?: NoiseModel): Float64Array {
  return densityMatrixNative(c, noise) ?? densityMatrixJs(c, noise);
}

/** densityMatrix on the JavaScript kernels (up to 12 qubits). */
export function densityMatrixJs(c: Circuit, noise?: NoiseModel): Float64Array {
  const n = c.numQubits;
  const rho = zeroDM(n);
  for (const op of c.ops) {
    if ('condition' in op && op.condition) throw new Error('densityMatrix does not take classical conditions; use run()');
    if (op.kind === 'measure') {
      applyChannelDM(rho, n, [op.qubit], [Float64Array.of(1, 0, 0, 0, 0, 0, 0, 0), Float64Array.of(0, 0, 0, 0, 0, 0, 1, 0)]);
    } else if (op.kind === 'reset') resetDM(rho, n, op.qubit);
    else applyOpDM(rho, n, op, noise);
  }
  // A global phase cancels in ρ, so c.globalPhase plays no part.
  return rho;
}

export interface Branch {
  rho: Float64Array;
  bits: Uint8Array;
}

function holds(cond: Condition | undefined, bits: Uint8Array): boolean {
  if (!cond) return true;
  let v = 0;
  cond.clbits.forEach((b, j) => {
    v += bits[b]! * 2 ** j;
  });
  return v === cond.value;
}

/**
 * Run a circuit with mid-circuit measurements and conditions: one unnormalised ρ per classical
 * record; readout error flips the recorded bit with its probability. Returns the branches,
 * whose traces are the probabilities of their records.
 */
export function runBranchesDM(c: Circuit, noise?: NoiseModel): Branch[] {
  const n = c.numQubits;
  let branches: Branch[] = [{ rho: zeroDM(n), bits: new Uint8Array(c.numClbits) }];
  const e = noise?.readout_error ?? 0;
  for (const op of c.ops) {
    if (op.kind === 'measure') {
      const next: Branch[] = [];
      for (const b of branches) {
        if (!holds(op.condition, b.bits)) {
          next.push(b);
          continue;
        }
        for (const v of [0, 1] as const) {
          const rho = Float64Array.from(b.rho);
          projectDM(rho, n, op.qubit, v);
          if (diagonalOf(rho, n).every((x) => x <= 1e-15)) continue;
          for (const rec of [v, 1 - v]) {
            const w = rec === v ? 1 - e : e;
            if (w <= 0) continue;
            const r2 = w === 1 ? rho : rho.map((x) => x * w);
            const bits = Uint8Array.from(b.bits);
            bits[op.clbit] = rec;
            next.push({ rho: r2, bits });
          }
        }
      }
      branches = merge(next);
      continue;
    }
    for (const b of branches) {
      if (op.kind !== 'barrier' && !holds(op.condition, b.bits)) continue;
      if (op.kind === 'reset') resetDM(b.rho, n, op.qubit);
      else applyOpDM(b.rho, n, op, noise);
    }
  }
  return branches;
}

/** Branches with the same classical record are one (their ρ add). */
function merge(bs: Branch[]): Branch[] {
  const m = new Map<string, Branch>();
  for (const b of bs) {
    const k = b.bits.join('');
    const have = m.get(k);
    if (!have) m.set(k, b);
    else for (let i = 0; i < have.rho.length; i++) have.rho[i] += b.rho[i]!;
  }
  return [...m.values()];
}
