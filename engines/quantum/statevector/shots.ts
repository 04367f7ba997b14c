/**
 * Shot sampling on the statevector: once from the final state when every measurement is
 * terminal; otherwise by branching groups of shots at each mid-circuit measurement (the
 * state is copied only when a group splits), so the circuit is never redone per shot.
 * Noisy runs use quantum trajectories (random Pauli and damping jumps per trajectory).
 */
import type { Circuit, Condition, Operation } from '../circuit.ts';
import type { NoiseModel } from '../noise.ts';
import { dampingParams, drawDepolarizingPaulis, flipReadout, gateTimeNs } from '../noise.ts';
import { Rng, bitKey, keyMaker, sampleFromState, shuffleInPlace, tally } from '../sampling.ts';
import { applyMatrix, applyPauliX } from './direct.ts';
import { compile } from './fusion.ts';
import { runSteps } from './parallel.ts';
import { applyOp, type Precision, zeroState } from './state.ts';
import { splitTerminal, unitaryJs } from './simulate.ts';
import { NATIVE_MIN_QUBITS, type NativeRun, runNative, sampleNative } from './native.ts';
import { nativeTrajectories } from './trajectories-native.ts';
import { MAX_VIEW_QUBITS, nativeStatevector } from '../native/index.ts';

export interface ShotResult {
  counts: Record<string, number>;
  /** Terminal measurements (when the final state serves every shot). */
  measures?: Array<{ qubit: number; clbit: number }>;
  /** Shot keys, in shot order (when asked for). */
  keys?: string[];
  /** The final state when it is the same for every shot (no mid-circuit collapse, no noise). */
  state?: Float64Array;
  /**
   * That state in native memory, when it is too large for a Float64Array or is held in single
   * precision (the caller releases it).
   */
  native?: NativeRun;
}

function holds(cond: Condition | undefined, bits: Uint8Array): boolean {
  if (!cond) return true;
  let v = 0;
  for (let j = 0; j < cond.clbits.length; j++) v += bits[cond.clbits[j]!]! * 2 ** j;
  return v === cond.value;
}

/** Probability that qubit q reads 1. */
function probOne(st: Float64Array, q: number): number {
  let p = 0;
  const bit = 1 << q;
  for (let i = 0; i < st.length >> 1; i++) if (i & bit) p += st[2 * i]! * st[2 * i]! + st[2 * i + 1]! * st[2 * i + 1]!;
  return p;
}

/** Collapse qubit q onto v and renormalise. */
function collapse(st: Float64Array, q: number, v: number, pv: number): void {
  const bit = 1 << q;
  const norm = 1 / Math.sqrt(pv);
  for (let i = 0; i < st.length >> 1; i++) {
    if (((i & bit) !== 0) === (v === 1)) {
      st[2 * i] *= norm;
      st[2 * i + 1] *= norm;
    } else {
      st[2 * i] = 0;
      st[2 * i + 1] = 0;
    }
  }
}

const makers = new Map<number, (v: number) => string>();

/** The counts key of basis state i under terminal measurements (highest clbit first). */
export function outcomeKey(i: number, measures: Array<{ qubit: number; clbit: number }>, numClbits: number): string {
  if (numClbits <= 30) {
    let v = 0;
    for (const m of measures) v = (v & ~(1 << m.clbit)) | (((i >>> m.qubit) & 1) << m.clbit);
    let make = makers.get(numClbits);
    if (!make) makers.set(numClbits, (make = keyMaker(numClbits)));
    return make(v);
  }
  const bits = new Uint8Array(numClbits);
  for (const m of measures) bits[m.clbit] = (i >>> m.qubit) & 1;
  return bitKey(bits);
}

/**
 * Sample `shots` shots of circuit `c`; per-shot keys only when `memory` is set. `precision`
 * applies to circuits whose measurements are all terminal, without noise (one final state).
 */
export function sampleShots(c: Circuit, shots: number, rng: Rng, noise?: NoiseModel, memory = false, precision: Precision = 'double'): ShotResult {
  const split = splitTerminal(c);
  if (!noise && split) {
    const nat = runNative(split.unitary, c.numQubits, { precision });
    const st = nat ? (nat.view instanceof Float64Array ? nat.view : null) : unitaryJs(c.numQubits, split.unitary);
    const idx = nat ? sampleNative(nat, shots, rng) : sampleFromState(st!, shots, rng);
    // Count basis states first; only distinct outcomes become bit strings.
    const counts: Record<string, number> = {};
    const keyOf = new Map<number, string>();
    const add = (i: number, n: number): void => {
      const k = outcomeKey(i, split.measures, c.numClbits);
      if (memory) keyOf.set(i, k);
      counts[k] = (counts[k] ?? 0) + n;
    };
    if (c.numQubits <= 24) {
      const tallies = new Uint32Array(2 ** c.numQubits);
      for (let s = 0; s < shots; s++) tallies[idx[s]!]++;
      for (let i = 0; i < tallies.length; i++) if (tallies[i]) add(i, tallies[i]!);
    } else {
      const byIndex = new Map<number, number>();
      for (let s = 0; s < shots; s++) byIndex.set(idx[s]!, (byIndex.get(idx[s]!) ?? 0) + 1);
      for (const [i, n] of byIndex) add(i, n);
    }
    const result: ShotResult = { counts, measures: split.measures };
    if (st) result.state = st;
    else if (nat) result.native = nat;
    if (memory) result.keys = Array.from(idx, (i) => keyOf.get(i)!);
    return result;
  }
  let keys: string[];
  if (!noise) {
    keys = [];
    branch(c, 0, zeroState(c.numQubits), new Uint8Array(c.numClbits), shots, rng, keys);
    shuffleInPlace(keys, rng);
  } else if (split && nativeStatevector() && c.numQubits >= NATIVE_MIN_QUBITS && c.numQubits <= MAX_VIEW_QUBITS) {
    keys = nativeTrajectories(c, split.unitary, split.measures, shots, rng, noise);
    shuffleInPlace(keys, rng);
  } else keys = trajectories(c, shots, rng, noise, split !== null);
  return { counts: tally(keys), keys };
}

/** Continue a group of `shots` shots from op `at` with state `st` (owned by this call). */
function branch(c: Circuit, at: number, st: Float64Array, bits: Uint8Array, shots: number, rng: Rng, out: string[]): void {
  for (let i = at; i < c.ops.length; i++) {
    const op = c.ops[i]!;
    if (op.kind !== 'barrier' && !holds(op.condition, bits)) continue;
    if (op.kind !== 'measure' && op.kind !== 'reset') {
      applyOp(st, op);
      continue;
    }
    const q = op.qubit;
    const p1 = Math.min(1, Math.max(0, probOne(st, q)));
    let ones = 0;
    for (let s = 0; s < shots; s++) if (rng.next() < p1) ones++;
    const groups: Array<[number, number]> = [[0, shots - ones], [1, ones]];
    const live = groups.filter(([, k]) => k > 0);
    for (const [v, k] of live) {
      const s2 = live.length === 1 ? st : Float64Array.from(st);
      collapse(s2, q, v, v ? p1 : 1 - p1);
      const b2 = live.length === 1 ? bits : Uint8Array.from(bits);
      if (op.kind === 'measure') b2[op.clbit] = v;
      else if (v === 1) applyPauliX(s2, q);
      branch(c, i + 1, s2, b2, k, rng, out);
    }
    return;
  }
  const key = bitKey(bits);
  for (let s = 0; s < shots; s++) out.push(key);
}

const PAULIS = [
  Float64Array.of(0, 0, 1, 0, 1, 0, 0, 0),
  Float64Array.of(0, 0, 0, -1, 0, 1, 0, 0),
  Float64Array.of(1, 0, 0, 0, 0, 0, -1, 0),
];

/** One trajectory's noise after a gate: Pauli errors with the depolarizing weights, then damping jumps. */
function trajectoryNoise(st: Float64Array, qubits: number[], noise: NoiseModel, rng: Rng): void {
  for (const e of drawDepolarizingPaulis(qubits, noise, rng)) applyMatrix(st, [e.qubit], PAULIS[e.pauli]!);
  const { gamma, lambda } = dampingParams(noise, gateTimeNs(noise, qubits.length));
  for (const q of qubits) {
    if (gamma <= 0 && lambda <= 0) break;
    const p1 = probOne(st, q);
    // Amplitude damping: jump |1> -> |0> with probability γ p1, else K0 = diag(1, sqrt(1-γ)).
    if (gamma > 0) {
      if (rng.next() < gamma * p1) {
        collapse(st, q, 1, p1);
        applyPauliX(st, q);
      } else {
        const k0 = Float64Array.of(1, 0, 0, 0, 0, 0, Math.sqrt(1 - gamma), 0);
        applyMatrix(st, [q], k0);
        normalise(st, 1 - gamma * p1);
      }
    }
    if (lambda > 0) {
      const p = probOne(st, q);
      if (rng.next() < lambda * p) collapse(st, q, 1, p);
      else {
        applyMatrix(st, [q], Float64Array.of(1, 0, 0, 0, 0, 0, Math.sqrt(1 - lambda), 0));
        normalise(st, 1 - lambda * p);
      }
    }
  }
}

function normalise(st: Float64Array, normSq: number): void {
  if (normSq <= 0) return;
  const f = 1 / Math.sqrt(normSq);
  for (let i = 0; i < st.length; i++) st[i] *= f;
}

/**
 * Noisy sampling by trajectories. With terminal measurements only, each trajectory's final
 * distribution serves several shots; otherwise every shot is its own trajectory.
 */
function trajectories(c: Circuit, shots: number, rng: Rng, noise: NoiseModel, terminal: boolean): string[] {
  const ntraj = terminal ? Math.min(shots, 256) : shots;
  const keys: string[] = [];
  for (let t = 0; t < ntraj; t++) {
    const share = Math.floor(shots / ntraj) + (t < shots % ntraj ? 1 : 0);
    const st = zeroState(c.numQubits);
    const bits = new Uint8Array(c.numClbits);
    const pending: Array<{ qubit: number; clbit: number }> = [];
    for (const op of c.ops) {
      if (op.kind === 'barrier') continue;
      if (!holds(op.condition, bits)) continue;
      if (op.kind === 'measure' && terminal) {
        pending.push({ qubit: op.qubit, clbit: op.clbit });
        continue;
      }
      if (op.kind === 'measure' || op.kind === 'reset') {
        const p1 = probOne(st, op.qubit);
        const v = rng.next() < p1 ? 1 : 0;
        collapse(st, op.qubit, v, v ? p1 : 1 - p1);
        if (op.kind === 'measure') {
          bits[op.clbit] = v;
          flipReadout(bits, [op.clbit], noise.readout_error, rng);
        } else if (v) applyPauliX(st, op.qubit);
        continue;
      }
      applyOp(st, op as Operation);
      trajectoryNoise(st, op.qubits, noise, rng);
    }
    if (terminal) {
      const idx = sampleFromState(st, share, rng);
      for (let s = 0; s < share; s++) {
        const b = new Uint8Array(c.numClbits);
        for (const m of pending) b[m.clbit] = (idx[s]! >>> m.qubit) & 1;
        flipReadout(b, pending.map((m) => m.clbit), noise.readout_error, rng);
        keys.push(bitKey(b));
      }
    } else keys.push(bitKey(bits));
  }
  shuffleInPlace(keys, rng);
  return keys;
}
