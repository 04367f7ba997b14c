/**
 * The density matrix of a circuit without classical conditions on the native kernels. ρ over n
 * qubits is the 2n-qubit vector of channels.ts (column bits low, row bits high), so the whole
 * noisy evolution is one list of matrix ops for the statevector planner: U on the row qubits
 * and conj(U) on the column qubits, and each channel's superoperator on both. The planner
 * fuses and cache-blocks them like any circuit, which lifts the density-matrix limit from 12
 * to 14 qubits (a 28-qubit vector, 4 GiB).
 */
import type { Circuit, Operation } from '../circuit.ts';
import { nativeStatevector } from '../native/index.ts';
import type { NoiseModel } from '../noise.ts';
import { opMatrix } from '../qasm/modifiers.ts';
import { simulationThreads } from '../statevector/native.ts';
import { planNative } from '../statevector/native-plan.ts';
import { conj, superop } from './channels.ts';
import { gateNoiseChannels } from './gate-noise.ts';

/** The largest density matrix the native kernels take (4^14 amplitudes = 4 GiB). */
export const MAX_NATIVE_DENSITY_QUBITS = 14;
/** Below this the JavaScript kernels are as fast. */
const NATIVE_MIN_DENSITY_QUBITS = 5;

const ZERO = Float64Array.of(1, 0, 0, 0, 0, 0, 0, 0);
const ONE = Float64Array.of(0, 0, 0, 0, 0, 0, 1, 0);
const RESET = [ZERO, Float64Array.of(0, 0, 1, 0, 0, 0, 0, 0)];

/** The ops that evolve vec(ρ) through `c` with `noise`. */
function vectorOps(c: Circuit, noise?: NoiseModel): Operation[] {
  const n = c.numQubits;
  const out: Operation[] = [];
  const channel = (qubits: number[], kraus: Float64Array[] | { superop: Float64Array }): void => {
    const matrix = 'superop' in kraus ? kraus.superop : superop(kraus, qubits.length);
    out.push({ kind: 'unitary', label: 'channel', qubits: [...qubits, ...qubits.map((q) => q + n)], matrix });
  };
  for (const op of c.ops) {
    if (op.kind === 'barrier') continue;
    if ('condition' in op && op.condition) throw new Error('densityMatrix does not take classical conditions; use run()');
    if (op.kind === 'measure') {
      channel([op.qubit], [ZERO, ONE]);
      continue;
    }
    if (op.kind === 'reset') {
      channel([op.qubit], RESET);
      continue;
    }
    // An identity applies nothing, but it takes time: its noise below still applies.
    if (!(op.kind === 'gate' && op.name === 'id')) {
      const u = op.kind === 'gate' ? opMatrix(op) : op.matrix;
      out.push({ kind: 'unitary', label: 'U', qubits: op.qubits.map((q) => q + n), matrix: u });
      out.push({ kind: 'unitary', label: 'conj U', qubits: op.qubits, matrix: conj(u) });
    }
    if (!noise) continue;
    for (const ch of gateNoiseChannels(op.qubits, noise)) channel(ch.qubits, ch);
  }
  return out;
}

/** ρ at the end of `c` (as densityMatrix), or null when the native kernels are absent or not worth it. */
export function densityMatrixNative(c: Circuit, noise?: NoiseModel): Float64Array | null {
  const native = nativeStatevector();
  const n = c.numQubits;
  if (!native || n < NATIVE_MIN_DENSITY_QUBITS || n > MAX_NATIVE_DENSITY_QUBITS) return null;
  const program = planNative(vectorOps(c, noise), 2 * n);
  if (!program) return null;
  const rho = new Float64Array(2 * 4 ** n);
  rho[0] = 1;
  native.run(rho, 2 * n, program.ints, program.reals, simulationThreads(), true);
  return rho;
}

/** Whether density matrices run on the native kernels here. */
export function nativeDensityAvailable(): boolean {
  return nativeStatevector() !== null;
}
