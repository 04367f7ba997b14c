/**
 * Noisy sampling by quantum trajectories on the native kernels, for circuits whose
 * measurements are all terminal.
 *
 * Each trajectory draws its state-independent errors up front: the depolarizing Paulis, and
 * phase damping as a Z flip with p = (1 - sqrt(1 - λ)) / 2 (the same channel: both scale the
 * coherences by sqrt(1 - λ) and keep the populations). That leaves amplitude damping, whose
 * jump probability depends on the state. It is unravelled the Monte Carlo wave-function way:
 * draw r, evolve with the no-jump operator K0 = diag(1, sqrt(1 - γ)) without renormalising, and
 * a jump happens at the first damping site where the squared norm falls below r. The norm only
 * shrinks, so one run of the whole circuit says whether any jump happened, and a binary search
 * over prefixes finds the site; there K1 = sqrt(γ) |0><1| applies, the state is renormalised
 * and the rest of the circuit continues with a fresh r. Most trajectories need one run of the
 * fused, cache-blocked program; each jump costs about log2(sites) more.
 */
import type { Circuit, Operation } from '../circuit.ts';
import { nativeStatevector } from '../native/index.ts';
import type { NoiseModel } from '../noise.ts';
import { dampingParams, drawDepolarizingPaulis, flipReadout, gateTimeNs } from '../noise.ts';
import { type Rng, bitKey, sampleFromState } from '../sampling.ts';
import { simulationThreads } from './native.ts';
import { planNative } from './native-plan.ts';

const PAULI = ['x', 'y', 'z'];

/** An op of one trajectory: a gate or drawn Pauli, or an amplitude-damping site. */
type TOp = { op: Operation } | { site: number; q: number; gamma: number };

const gate = (name: string, q: number): { op: Operation } => ({ op: { kind: 'gate', name, qubits: [q], params: [] } });

/** The gates of the circuit with this trajectory's drawn Paulis and its damping sites. */
function drawTrajectory(ops: Operation[], noise: NoiseModel, rng: Rng): TOp[] {
  const out: TOp[] = [];
  let sites = 0;
  for (const op of ops) {
    if (op.kind !== 'gate' && op.kind !== 'unitary') continue;
    out.push({ op });
    const qs = op.qubits;
    for (const e of drawDepolarizingPaulis(qs, noise, rng)) out.push(gate(PAULI[e.pauli]!, e.qubit));
    const { gamma, lambda } = dampingParams(noise, gateTimeNs(noise, qs.length));
    const pz = (1 - Math.sqrt(1 - lambda)) / 2;
    for (const q of qs) {
      if (gamma > 0) out.push({ site: sites++, q, gamma });
      if (pz > 0 && rng.next() < pz) out.push(gate('z', q));
    }
  }
  return out;
}

/** The ops of t[from, to), with every damping site as its no-jump operator K0. */
function noJump(t: TOp[], from: number, to: number): Operation[] {
  const ops: Operation[] = [];
  for (let i = from; i < to; i++) {
    const x = t[i]!;
    if ('op' in x) ops.push(x.op);
    else ops.push({ kind: 'unitary', label: 'K0', qubits: [x.q], matrix: Float64Array.of(1, 0, 0, 0, 0, 0, Math.sqrt(1 - x.gamma), 0) });
  }
  return ops;
}

function apply(st: Float64Array, n: number, ops: Operation[], fromZero: boolean): void {
  const program = planNative(ops, n);
  if (!program) throw new Error('an operation is too wide for the native kernels');
  nativeStatevector()!.run(st, n, program.ints, program.reals, simulationThreads(), fromZero);
}

function normSquared(st: Float64Array, n: number): number {
  const out = new Float64Array(1);
  nativeStatevector()!.marginal(st, n, new Int32Array(0), out);
  return out[0]!;
}

function scale(st: Float64Array, f: number): void {
  for (let i = 0; i < st.length; i++) st[i] = st[i]! * f;
}

/** Runs one trajectory from |0...0> and returns its final (normalised) state. */
function runTrajectory(t: TOp[], n: number, rng: Rng): Float64Array {
  const st = new Float64Array(2 * 2 ** n);
  st[0] = 1;
  let fromZero = true;
  let start = 0;
  while (start < t.length) {
    const r = rng.next();
    const base = fromZero ? null : st.slice();
    apply(st, n, noJump(t, start, t.length), fromZero);
    const left = normSquared(st, n);
    if (left >= r) {
      // No further jump: what remains is the no-jump branch, renormalised.
      scale(st, 1 / Math.sqrt(left));
      break;
    }
    // A jump happened: find the first damping site after which the norm is below r.
    const sites: number[] = [];
    for (let i = start; i < t.length; i++) if (!('op' in t[i]!)) sites.push(i);
    const prefix = (end: number): Float64Array => {
      const s = base ? base.slice() : new Float64Array(2 * 2 ** n);
      if (!base) s[0] = 1;
      apply(s, n, noJump(t, start, end), fromZero);
      return s;
    };
    let lo = -1; // the norm is at least r after no site (it is 1)
    let hi = sites.length - 1; // ... and below r after the last
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (normSquared(prefix(sites[mid]! + 1), n) >= r) lo = mid;
      else hi = mid;
    }
    const at = sites[hi]!;
    const site = t[at] as Extract<TOp, { site: number }>;
    const s = prefix(at);
    const g = Math.sqrt(site.gamma);
    apply(s, n, [{ kind: 'unitary', label: 'K1', qubits: [site.q], matrix: Float64Array.of(0, 0, g, 0, 0, 0, 0, 0) }], false);
    scale(s, 1 / Math.sqrt(normSquared(s, n)));
    st.set(s);
    fromZero = false;
    start = at + 1;
  }
  return st;
}

/**
 * Noisy shots of a circuit with terminal measurements only (`unitary` its gates, `measures`
 * its measurements), on up to 256 trajectories that each serve a share of the shots.
 */
export function nativeTrajectories(c: Circuit, unitary: Operation[], measures: Array<{ qubit: number; clbit: number }>, shots: number, rng: Rng, noise: NoiseModel): string[] {
  const ntraj = Math.min(shots, 256);
  const keys: string[] = [];
  const clbits = measures.map((m) => m.clbit);
  for (let k = 0; k < ntraj; k++) {
    const share = Math.floor(shots / ntraj) + (k < shots % ntraj ? 1 : 0);
    const st = runTrajectory(drawTrajectory(unitary, noise, rng), c.numQubits, rng);
    const idx = sampleFromState(st, share, rng);
    for (let s = 0; s < share; s++) {
      const b = new Uint8Array(c.numClbits);
      for (const m of measures) b[m.clbit] = (idx[s]! >>> m.qubit) & 1;
      flipReadout(b, clbits, noise.readout_error, rng);
      keys.push(bitKey(b));
    }
  }
  return keys;
}

/** The mean |amplitude|^2 over `count` trajectories of unitary ops: the noisy distribution they estimate. */
export function meanTrajectoryProbabilities(ops: Operation[], n: number, noise: NoiseModel, count: number, rng: Rng): Float64Array {
  const p = new Float64Array(2 ** n);
  for (let k = 0; k < count; k++) {
    const st = runTrajectory(drawTrajectory(ops, noise, rng), n, rng);
    for (let i = 0; i < p.length; i++) p[i] += (st[2 * i]! ** 2 + st[2 * i + 1]! ** 2) / count;
  }
  return p;
}
