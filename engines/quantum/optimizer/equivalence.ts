/**
 * Checks that an optimized circuit is the same operation as the original: both run on the same
 * random product state (placed by the initial layout, ancillas in |0>), and the outputs must
 * agree exactly, global phase included, once the final mapping is undone. A random product
 * state is an eigenvector of a non-scalar unitary with probability zero, so this is a proof
 * with probability one (up to floating point).
 */
import type { Circuit } from '../circuit.ts';
import type { Ir } from './ir.ts';
import { inner, randomProductState, rng, run, type State } from './sim.ts';
import { unroll, type MatrixFallback } from './unroll.ts';

/** Places a logical state of n qubits onto N physical qubits: logical l sits on layout[l]. */
function place(state: State, n: number, N: number, layout: number[]): State {
  const out = new Float64Array(2 << N);
  const size = 1 << n;
  for (let i = 0; i < size; i++) {
    let j = 0;
    for (let l = 0; l < n; l++) if (i & (1 << l)) j |= 1 << layout[l];
    out[2 * j] = state[2 * i];
    out[2 * j + 1] = state[2 * i + 1];
  }
  return out;
}

export interface EquivalenceOptions {
  initialLayout?: Record<number, number>;
  qubitMapping?: Record<number, number>;
  seed?: number;
  fallback?: MatrixFallback;
}

/** The distance |<expected|actual> - 1| (0 when equal, global phase included). */
export function equivalenceError(original: Circuit, optimized: Circuit, o: EquivalenceOptions = {}): number {
  const n = original.numQubits;
  const N = optimized.numQubits;
  const ident = [...Array(n).keys()];
  const init = o.initialLayout ? ident.map((l) => o.initialLayout?.[l] as number) : ident;
  const fin = o.qubitMapping ? ident.map((l) => o.qubitMapping?.[l] as number) : ident;
  const psi = randomProductState(n, rng(o.seed ?? 1));
  const ref: Ir = unroll(original, o.fallback);
  const expected = place(run(ref, psi), n, N, fin);
  const actual = run(unroll(optimized, o.fallback), place(psi, n, N, init));
  const [re, im] = inner(expected, actual);
  return Math.hypot(re - 1, im);
}
