/**
 * The statevector equivalence check of equivalence.ts for circuits too wide for its
 * gate-by-gate simulator (19 to 26 qubits), on the native kernels: the random product state
 * is prepared by one-qubit gates from |0...0>, so both circuits run as fused, cache-blocked
 * programs. The statement checked is the same: the optimized circuit on the placed input
 * gives the original's output, placed by the final mapping, up to (or including) the global
 * phase.
 */
import type { Circuit, Operation } from '../circuit.ts';
import { nativeStatevector } from '../native/index.ts';
import { runNative } from '../statevector/native.ts';
import { randomQubitState, rng } from './sim.ts';

/** Widest circuit checked this way: two 26-qubit states and a placed copy take 3 GiB. */
export const WIDE_CHECK_QUBITS = 26;

/** One-qubit gates preparing the seeded random product state of sim.ts from |0...0>. */
function preparation(n: number, seed: number, at: (l: number) => number): Operation[] {
  const rand = rng(seed);
  const ops: Operation[] = [];
  for (let l = 0; l < n; l++) {
    const { a: [ar, ai], b: [br, bi] } = randomQubitState(rand);
    // [[a, -conj(b)], [b, conj(a)]] takes |0> to a|0> + b|1>.
    ops.push({ kind: 'unitary', label: 'prepare', qubits: [at(l)], matrix: Float64Array.of(ar, ai, -br, bi, br, bi, ar, -ai) });
  }
  return ops;
}

/** Whether wide checks can run here (the native kernels are built). */
export function wideCheckAvailable(): boolean {
  return nativeStatevector() !== null;
}

/**
 * |<expected|actual> - 1| (or | |<expected|actual>| - 1 | ignoring the global phase) for the
 * unitary parts `original` (n logical qubits) and `optimized` (N physical qubits).
 */
export function wideStateError(original: Circuit, optimized: Circuit, init: number[], fin: number[], seed: number, ignoreGlobalPhase: boolean): number {
  const n = original.numQubits;
  const N = optimized.numQubits;
  if (N > WIDE_CHECK_QUBITS) throw new Error(`${N} qubits is too wide for the statevector check`);
  const expected = runNative([...preparation(n, seed, (l) => l), ...original.ops], n, { force: true })?.view;
  const actual = runNative([...preparation(n, seed, (l) => init[l]!), ...optimized.ops], N, { force: true })?.view;
  if (!expected || !actual) throw new Error('the native kernels are not available');
  // <place(expected)|actual>: logical qubit l of the expected state sits on fin[l].
  let re = 0;
  let im = 0;
  for (let i = 0; i < 2 ** n; i++) {
    let j = 0;
    for (let l = 0; l < n; l++) if (i & (1 << l)) j |= 1 << fin[l]!;
    const er = expected[2 * i]!, ei = expected[2 * i + 1]!, xr = actual[2 * j]!, xi = actual[2 * j + 1]!;
    re += er * xr + ei * xi;
    im += er * xi - ei * xr;
  }
  const phase = optimized.globalPhase - original.globalPhase;
  const pr = re * Math.cos(phase) - im * Math.sin(phase);
  const pi = re * Math.sin(phase) + im * Math.cos(phase);
  return ignoreGlobalPhase ? Math.abs(Math.hypot(pr, pi) - 1) : Math.hypot(pr - 1, pi);
}
