/**
 * Plans a unitary circuit for the native statevector kernels: fuses gates, then groups them
 * into passes. A pass names up to `localQubits` "active" qubits; the kernels gather each
 * chunk of the state over those qubits into a cache-sized buffer, apply every op of the pass
 * there, and write it back, so memory is crossed once per pass instead of once per gate.
 *
 * Only the targets of non-diagonal ops must be active. Controls and diagonal ops may name any
 * qubit: in a chunk the inactive qubits have fixed values, so such a control either holds for
 * the whole chunk or for none of it, and a diagonal factor is a constant there.
 */
import type { Operation } from '../circuit.ts';
import { gateMatrix } from '../gates.ts';
import { kron, matmul } from '../matrix.ts';
import { compileOp } from './fusion.ts';
import type { Step } from './steps.ts';

/** Planner ops, on global qubits. Dense matrices list targets low matrix bit first. */
type POp =
  | { k: 'dense'; targets: number[]; m: Float64Array; ctrl: number }
  | { k: 'diag1'; q: number; d: Float64Array; ctrl: number }
  | { k: 'phase'; mask: number; c: number; s: number }
  | { k: 'x'; q: number; ctrl: number }
  | { k: 'swap'; a: number; b: number; ctrl: number };

/** Op codes shared with engines/quantum/native/src/program.h. */
const T = { dense1: 0, dense2: 1, denseK: 2, phase: 3, diag1: 4, diag1Outer: 5, x: 6, swap: 7 } as const;
const MAX_K = 6;
const OP_INTS = 6 + MAX_K;

/** 2^15 amplitudes in split re/im form are 512 KiB: the chunk stays in a core's 1 MiB L2. */
export const DEFAULT_LOCAL_QUBITS = 15;
/** Local bits kept for idle qubits: gate loops then run over at least 2^3 contiguous amplitudes (one AVX-512 vector). */
const IDLE_LOCAL_QUBITS = 3;

export interface NativeProgram {
  ints: Int32Array;
  reals: Float64Array;
  passes: number;
  ops: number;
}

const bitsOf = (mask: number): number[] => {
  const out: number[] = [];
  for (let b = 0; b < 31; b++) if ((mask >>> b) & 1) out.push(b);
  return out;
};

function fromStep(s: Step): POp {
  const ctrl = 'cmask' in s ? s.cmask : 0;
  switch (s.k) {
    case 'm1':
      return { k: 'dense', targets: [s.q], m: s.m, ctrl };
    case 'd1':
      return { k: 'diag1', q: s.q, d: s.d, ctrl };
    case 'x':
      return { k: 'x', q: s.q, ctrl };
    case 'phase':
      return { k: 'phase', mask: s.mask, c: s.c, s: s.s };
    case 'swap':
      return { k: 'swap', a: s.a, b: s.b, ctrl };
    case 'm2':
      return { k: 'dense', targets: [s.q0, s.q1], m: s.m, ctrl };
    case 'mk':
      return { k: 'dense', targets: Array.from(s.qubits), m: s.m, ctrl };
    default:
      throw new Error(`step '${s.k}' is not produced by compileOp`);
  }
}

/** An uncontrolled one-qubit op as a 2x2 matrix, or null. */
function oneQubit(op: POp): { q: number; m: Float64Array } | null {
  if (op.k === 'dense' && op.targets.length === 1 && op.ctrl === 0) return { q: op.targets[0]!, m: op.m };
  if (op.k === 'diag1' && op.ctrl === 0) return { q: op.q, m: Float64Array.of(op.d[0]!, op.d[1]!, 0, 0, 0, 0, op.d[2]!, op.d[3]!) };
  if (op.k === 'x' && op.ctrl === 0) return { q: op.q, m: Float64Array.of(0, 0, 1, 0, 1, 0, 0, 0) };
  if (op.k === 'phase' && (op.mask & (op.mask - 1)) === 0) return { q: bitsOf(op.mask)[0]!, m: Float64Array.of(1, 0, 0, 0, 0, 0, op.c, op.s) };
  return null;
}

/** An uncontrolled non-diagonal two-qubit op as a 4x4 on (q0 low, q1), or null. */
function twoQubit(op: POp): { q0: number; q1: number; m: Float64Array } | null {
  if (op.k === 'dense' && op.targets.length === 2 && op.ctrl === 0) return { q0: op.targets[0]!, q1: op.targets[1]!, m: op.m };
  if (op.k === 'x' && op.ctrl !== 0 && (op.ctrl & (op.ctrl - 1)) === 0) return { q0: bitsOf(op.ctrl)[0]!, q1: op.q, m: gateMatrix('cx', []) };
  if (op.k === 'swap' && op.ctrl === 0) return { q0: op.a, q1: op.b, m: gateMatrix('swap', []) };
  return null;
}

const I2 = Float64Array.of(1, 0, 0, 0, 0, 0, 1, 0);

function flushOne(q: number, m: Float64Array): POp {
  if (m[2] === 0 && m[3] === 0 && m[4] === 0 && m[5] === 0) return { k: 'diag1', q, d: Float64Array.of(m[0]!, m[1]!, m[6]!, m[7]!), ctrl: 0 };
  return { k: 'dense', targets: [q], m, ctrl: 0 };
}

/**
 * Fuses runs of one-qubit gates into one 2x2, absorbs them into the next non-diagonal
 * two-qubit gate on their qubit, and multiplies consecutive two-qubit gates on the same pair.
 */
export function fuseForNative(ops: Operation[]): POp[] {
  const out: Array<POp | null> = [];
  const pending = new Map<number, Float64Array>();
  const last = new Map<number, number>(); // qubit -> index in out of the last op touching it
  const flush = (q: number): void => {
    const m = pending.get(q);
    if (!m) return;
    pending.delete(q);
    last.set(q, out.length);
    out.push(flushOne(q, m));
  };
  for (const op of ops) {
    const step = compileOp(op);
    if (!step) continue;
    const p = fromStep(step);
    const one = oneQubit(p);
    if (one) {
      const prev = pending.get(one.q);
      pending.set(one.q, prev ? matmul(one.m, prev) : one.m);
      continue;
    }
    const two = twoQubit(p);
    const i = two ? last.get(two.q0) : undefined;
    const before = two && i !== undefined && i === last.get(two.q1) ? out[i] : null;
    const prior = before && before.k === 'dense' && before.ctrl === 0 && before.targets.length === 2 ? before : null;
    // A bare CX or swap stays a permutation, far cheaper than a dense 4x4; it is made dense
    // only to absorb one-qubit gates or a dense gate just before it on the same pair.
    if (two && (prior || pending.has(two.q0) || pending.has(two.q1))) {
      const pre = pending.has(two.q0) || pending.has(two.q1) ? kron(pending.get(two.q1) ?? I2, pending.get(two.q0) ?? I2) : null;
      pending.delete(two.q0);
      pending.delete(two.q1);
      let m = pre ? matmul(two.m, pre) : two.m;
      if (prior) {
        const swapped = prior.targets[0] === two.q1;
        m = matmul(m, swapped ? swapHalves(prior.m) : prior.m);
        out[i!] = null;
      }
      last.set(two.q0, out.length);
      last.set(two.q1, out.length);
      out.push({ k: 'dense', targets: [two.q0, two.q1], m, ctrl: 0 });
      continue;
    }
    const wires = wiresOf(p);
    for (const q of wires) flush(q);
    for (const q of wires) last.set(q, out.length);
    out.push(p);
  }
  for (const q of [...pending.keys()].sort((a, b) => a - b)) flush(q);
  return out.filter((x): x is POp => x !== null);
}

/** A 4x4 on (a, b) rewritten for (b, a): conjugate by the swap of the two index bits. */
function swapHalves(m: Float64Array): Float64Array {
  const perm = [0, 2, 1, 3];
  const out = new Float64Array(32);
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) {
      out[2 * (perm[r]! * 4 + perm[c]!)] = m[2 * (r * 4 + c)]!;
      out[2 * (perm[r]! * 4 + perm[c]!) + 1] = m[2 * (r * 4 + c) + 1]!;
    }
  }
  return out;
}

function wiresOf(op: POp): number[] {
  switch (op.k) {
    case 'dense':
      return [...op.targets, ...bitsOf(op.ctrl)];
    case 'diag1':
    case 'x':
      return [op.q, ...bitsOf(op.ctrl)];
    case 'phase':
      return bitsOf(op.mask);
    case 'swap':
      return [op.a, op.b, ...bitsOf(op.ctrl)];
  }
}

/** Qubits that must be active in the pass that runs op. */
function needOf(op: POp): number[] {
  switch (op.k) {
    case 'dense':
      return op.targets;
    case 'x':
      return [op.q];
    case 'swap':
      return [op.a, op.b];
    default:
      return [];
  }
}

const isDiagonal = (op: POp): boolean => op.k === 'phase' || op.k === 'diag1';

interface PlannedPass {
  globalOf: number[];
  ops: POp[];
}

/** Greedy passes: take every op whose wires are free and whose targets fit in the pass. */
function planPasses(ops: POp[], n: number, localQubits: number): PlannedPass[] | null {
  const a = Math.min(n, localQubits);
  // Leave the lowest local bits to idle qubits so that gate loops run over contiguous data.
  const capBase = n > a && a >= 8 ? a - IDLE_LOCAL_QUBITS : a;
  let remaining = ops;
  const passes: PlannedPass[] = [];
  while (remaining.length > 0) {
    const firstNeed = needOf(remaining[0]!).length;
    if (firstNeed > a) return null;
    const cap = firstNeed > capBase ? a : capBase;
    const blocked = new Uint8Array(n); // 0 free, 1 behind a skipped diagonal op, 2 behind any other
    let allBlocked = 0;
    const busy = new Set<number>();
    const taken: POp[] = [];
    const rest: POp[] = [];
    for (const op of remaining) {
      if (allBlocked === n) {
        rest.push(op);
        continue;
      }
      const diag = isDiagonal(op);
      const wires = wiresOf(op);
      let free = true;
      for (const w of wires) if (blocked[w] === 2 || (blocked[w] === 1 && !diag)) free = false;
      let grow = 0;
      if (free) for (const q of needOf(op)) if (!busy.has(q)) grow++;
      if (free && busy.size + grow <= cap) {
        for (const q of needOf(op)) busy.add(q);
        taken.push(op);
        continue;
      }
      rest.push(op);
      for (const w of wires) {
        const level = diag ? 1 : 2;
        if (blocked[w]! < level) {
          if (level === 2) allBlocked++;
          blocked[w] = level;
        }
      }
    }
    const idle: number[] = [];
    for (let q = 0; q < n && busy.size + idle.length < a; q++) if (!busy.has(q)) idle.push(q);
    passes.push({ globalOf: [...idle, ...[...busy].sort((x, y) => x - y)], ops: taken });
    remaining = rest;
  }
  return passes;
}

/**
 * The native program for unitary ops on n qubits, or null when an op is wider than a pass can
 * hold (the JavaScript kernels then run the circuit).
 */
export function planNative(opsIn: Operation[], n: number, localQubits = DEFAULT_LOCAL_QUBITS): NativeProgram | null {
  const ops = fuseForNative(opsIn);
  for (const op of ops) if (op.k === 'dense' && op.targets.length > MAX_K) return null;
  const passes = n === 0 ? [] : planPasses(ops, n, localQubits);
  if (!passes) return null;
  const ints: number[] = [passes.length];
  const reals: number[] = [];
  let count = 0;
  for (const p of passes) {
    const loc = new Map(p.globalOf.map((q, j) => [q, j]));
    ints.push(p.globalOf.length, ...p.globalOf, p.ops.length);
    const split = (mask: number): [number, number] => {
      let local = 0;
      let outer = 0;
      for (const b of bitsOf(mask)) {
        const j = loc.get(b);
        if (j === undefined) outer |= 1 << b;
        else local |= 1 << j;
      }
      return [local, outer];
    };
    for (const op of p.ops) {
      const rec = new Array<number>(OP_INTS).fill(0);
      if (op.k === 'dense') {
        const [lm, om] = split(op.ctrl);
        const qs = op.targets.map((q) => loc.get(q)!);
        const type = qs.length === 1 ? T.dense1 : qs.length === 2 ? T.dense2 : T.denseK;
        rec.splice(0, 6, type, lm, om, qs[0]!, qs[1] ?? 0, qs.length);
        qs.forEach((q, j) => (rec[6 + j] = q));
        reals.push(...op.m);
      } else if (op.k === 'diag1') {
        const [lm, om] = split(op.ctrl);
        const j = loc.get(op.q);
        rec.splice(0, 4, j === undefined ? T.diag1Outer : T.diag1, lm, om, j ?? op.q);
        reals.push(...op.d);
      } else if (op.k === 'phase') {
        const [lm, om] = split(op.mask);
        rec.splice(0, 3, T.phase, lm, om);
        reals.push(op.c, op.s);
      } else if (op.k === 'x') {
        const [lm, om] = split(op.ctrl);
        rec.splice(0, 4, T.x, lm, om, loc.get(op.q)!);
      } else {
        const [lm, om] = split(op.ctrl);
        rec.splice(0, 5, T.swap, lm, om, loc.get(op.a)!, loc.get(op.b)!);
      }
      ints.push(...rec);
      count++;
    }
  }
  return { ints: Int32Array.from(ints), reals: Float64Array.from(reals), passes: passes.length, ops: count };
}
