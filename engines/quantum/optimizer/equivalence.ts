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
import { WIDE_CHECK_QUBITS, wideCheckAvailable, wideStateError } from './equivalence-wide.ts';

/** Widest circuit the gate-by-gate JavaScript simulation checks; wider ones run on the native kernels. */
const JS_CHECK_QUBITS = 18;

/** Widest circuit equivalenceError can check here. */
export function maxCheckQubits(): number {
  return wideCheckAvailable() ? WIDE_CHECK_QUBITS : JS_CHECK_QUBITS;
}

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
  /** Compare up to a global phase (OpenQASM 2 text cannot carry one). */
  ignoreGlobalPhase?: boolean;
}

/**
 * Renumbers the physical qubits a routed circuit actually uses (gates, layouts) to 0..k-1,
 * so that a circuit mapped onto a large device can still be simulated.
 */
function compact(n: number, c: Circuit, o: EquivalenceOptions): { circuit: Circuit; o: EquivalenceOptions } {
  const used = new Set<number>();
  for (let l = 0; l < n; l++) {
    used.add(o.initialLayout?.[l] ?? l);
    used.add(o.qubitMapping?.[l] ?? l);
  }
  for (const op of c.ops) {
    if (op.kind === 'measure' || op.kind === 'reset') used.add(op.qubit);
    else for (const q of op.qubits) used.add(q);
  }
  if (used.size === c.numQubits) return { circuit: c, o };
  const index = new Map([...used].sort((x, y) => x - y).map((p, i) => [p, i]));
  const m = (p: number): number => index.get(p) as number;
  const ops = c.ops.map((op) => (op.kind === 'measure' || op.kind === 'reset' ? { ...op, qubit: m(op.qubit) } : { ...op, qubits: op.qubits.map(m) }));
  const remap = (r?: Record<number, number>): Record<number, number> =>
    Object.fromEntries([...Array(n).keys()].map((l) => [l, m(r?.[l] ?? l)]));
  return {
    circuit: { ...c, numQubits: used.size, qregs: [{ name: 'q', size: used.size, offset: 0 }], ops },
    o: { ...o, initialLayout: remap(o.initialLayout), qubitMapping: remap(o.qubitMapping) },
  };
}

interface Terminal {
  unitary: Circuit;
  measures: Array<{ qubit: number; clbit: number }>;
}

/** The circuit without its measurements when every measurement is final on its qubit (else null). */
export function splitTerminalMeasures(c: Circuit): Terminal | null {
  const measured = new Set<number>();
  const measures: Terminal['measures'] = [];
  const ops: Circuit['ops'] = [];
  for (const op of c.ops) {
    if (op.kind === 'reset' || ('condition' in op && op.condition)) return null;
    if (op.kind === 'measure') {
      measured.add(op.qubit);
      measures.push({ qubit: op.qubit, clbit: op.clbit });
      continue;
    }
    if (op.kind !== 'barrier' && op.qubits.some((q) => measured.has(q))) return null;
    ops.push(op);
  }
  return { unitary: { ...c, ops }, measures };
}

/** Outcome distribution of the measured classical bits. */
function distribution(state: State, measures: Terminal['measures']): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < state.length / 2; i++) {
    const p = state[2 * i] ** 2 + state[2 * i + 1] ** 2;
    if (p < 1e-15) continue;
    let key = 0;
    for (const m of measures) if (i & (1 << m.qubit)) key |= 1 << m.clbit;
    else key &= ~(1 << m.clbit);
    out.set(key, (out.get(key) ?? 0) + p);
  }
  return out;
}

/** Output states of originals on their random inputs, kept while the original circuit lives. */
const referenceCache = new WeakMap<Circuit, Map<number, { psi: State; out: State }>>();

function reference(original: Circuit, unitary: Circuit, seed: number, fallback?: MatrixFallback): { psi: State; out: State } {
  const bySeed = referenceCache.get(original) ?? new Map<number, { psi: State; out: State }>();
  referenceCache.set(original, bySeed);
  let r = bySeed.get(seed);
  if (!r) {
    const psi = randomProductState(original.numQubits, rng(seed));
    r = { psi, out: run(unroll(unitary, fallback), psi) };
    bySeed.set(seed, r);
  }
  return r;
}

/**
 * The distance between original and optimized: |<expected|actual> - 1| on the unitary parts,
 * plus the total variation distance of the final measurement outcomes. Throws when a
 * circuit has mid-circuit measurement, reset or conditions (not checked here).
 */
export function equivalenceError(original: Circuit, routed: Circuit, options: EquivalenceOptions = {}): number {
  const { circuit: optimized, o } = compact(original.numQubits, routed, options);
  const a = splitTerminalMeasures(original);
  const b = splitTerminalMeasures(optimized);
  if (!a || !b) throw new Error('equivalence is checked only for circuits whose measurements are all final');
  const n = original.numQubits;
  const N = optimized.numQubits;
  const ident = [...Array(n).keys()];
  const init = ident.map((l) => o.initialLayout?.[l] ?? l);
  const fin = ident.map((l) => o.qubitMapping?.[l] ?? l);
  if (N > JS_CHECK_QUBITS && wideCheckAvailable()) {
    const err = wideStateError(a.unitary, b.unitary, init, fin, o.seed ?? 1, o.ignoreGlobalPhase === true);
    // The states agree; the final measurements must then read the mapped qubits into the same bits.
    const key = (ms: Terminal['measures'], at: (q: number) => number): string => ms.map((m) => `${at(m.qubit)}:${m.clbit}`).sort().join();
    return err + (key(a.measures, (q) => fin[q]!) === key(b.measures, (q) => q) ? 0 : 1);
  }
  const ref = reference(original, a.unitary, o.seed ?? 1, o.fallback);
  const before: Ir = unroll(b.unitary, o.fallback);
  const actual = run(before, place(ref.psi, n, N, init));
  const [re, im] = inner(place(ref.out, n, N, fin), actual);
  const err = o.ignoreGlobalPhase ? Math.abs(Math.hypot(re, im) - 1) : Math.hypot(re - 1, im);
  if (!a.measures.length && !b.measures.length) return err;
  const da = distribution(ref.out, a.measures);
  const db = distribution(actual, b.measures);
  let tv = 0;
  for (const k of new Set([...da.keys(), ...db.keys()])) tv += Math.abs((da.get(k) ?? 0) - (db.get(k) ?? 0));
  return err + tv / 2;
}
