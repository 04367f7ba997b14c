/**
 * Plans a unitary circuit for the native statevector kernels: fuses gates (native-fusion.ts),
 * then groups them into passes. A pass names up to `localQubits` "active" qubits; the kernels gather each
 * chunk of the state over those qubits into a cache-sized buffer, apply every op of the pass
 * there, and write it back, so memory is crossed once per pass instead of once per gate.
 *
 * Only the targets of non-diagonal ops must be active. Controls and diagonal ops may name any
 * qubit: in a chunk the inactive qubits have fixed values, so such a control either holds for
 * the whole chunk or for none of it, and a diagonal factor is a constant there.
 */
import type { Operation } from '../circuit.ts';
import { bitsOf, fuseForNative, type POp, wiresOf } from './native-fusion.ts';

/** Op codes shared with engines/quantum/native/src/program.h. */
const T = { dense1: 0, dense2: 1, denseK: 2, phase: 3, diag1: 4, diag1Outer: 5, x: 6, swap: 7, diagK: 8 } as const;
const MAX_K = 6;
const OP_INTS = 6 + MAX_K;

/** 2^15 amplitudes in split re/im form are 512 KiB: the chunk stays in a core's 1 MiB L2. */
export const DEFAULT_LOCAL_QUBITS = 15;
/** Global qubits kept in local bits 0..2 of every pass: one 64-byte vector holds 2^3 doubles (lowkernels.h). */
const LOW_LOCAL_QUBITS = 3;
/** In single precision a 64-byte vector holds 2^4 numbers. */
export const LOW_LOCAL_QUBITS_SINGLE = 4;

export interface NativeProgram {
  ints: Int32Array;
  reals: Float64Array;
  passes: number;
  ops: number;
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

/**
 * Greedy passes: take every op whose wires are free and whose targets fit in the pass.
 *
 * The lowest `lowBits` global qubits (one vector of amplitudes) are local bits 0..lowBits-1 of
 * every pass: the kernels apply gates on them inside vector registers, and a chunk's gather
 * and scatter then move contiguous blocks of at least one vector. They are in every pass, so
 * gates on them never take a place in one; the other qubits are ordered as in the state, so
 * the contiguous block is as long as the pass allows.
 */
function planPasses(ops: POp[], n: number, localQubits: number, lowBits: number): PlannedPass[] | null {
  const a = Math.min(n, localQubits);
  const low = n > a && a >= 8 ? Math.min(lowBits, a) : 0;
  const capBase = a - low;
  const placed = (q: number): boolean => q < low;
  let remaining = ops;
  const passes: PlannedPass[] = [];
  while (remaining.length > 0) {
    const firstNeed = needOf(remaining[0]!).filter((q) => !placed(q)).length;
    if (firstNeed > capBase) return null;
    const cap = capBase;
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
      if (free) for (const q of needOf(op)) if (!placed(q) && !busy.has(q)) grow++;
      if (free && busy.size + grow <= cap) {
        for (const q of needOf(op)) if (!placed(q)) busy.add(q);
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
    passes.push({ globalOf: [...idle, ...busy].sort((x, y) => x - y), ops: taken });
    remaining = rest;
  }
  return passes;
}

/**
 * The native program for unitary ops on n qubits, or null when an op is wider than a pass can
 * hold (the JavaScript kernels then run the circuit).
 */
export function planNative(opsIn: Operation[], n: number, localQubits = DEFAULT_LOCAL_QUBITS, lowBits = LOW_LOCAL_QUBITS): NativeProgram | null {
  const ops = fuseForNative(opsIn);
  for (const op of ops) if (op.k === 'dense' && op.targets.length > MAX_K) return null;
  const passes = n === 0 ? [] : planPasses(ops, n, localQubits, lowBits);
  if (!passes) return null;
  const ints: number[] = [passes.length];
  const reals: number[] = [];
  let count = 0;
  for (const p of passes) {
    const loc = new Map(p.globalOf.map((q, j) => [q, j]));
    const fused = fuseDiagonalRuns(p.ops, loc);
    ints.push(p.globalOf.length, ...p.globalOf, fused.length);
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
    for (const op of fused) {
      const rec = new Array<number>(OP_INTS).fill(0);
      if (op.k === 'diagK') {
        rec.splice(0, 6, T.diagK, 0, 0, 0, 0, op.qubits.length);
        op.qubits.forEach((q, j) => (rec[6 + j] = loc.get(q)!));
        reals.push(...op.d);
      } else if (op.k === 'dense') {
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

/** Diagonal ops fused into one table: factor x multiplies the amplitudes whose `qubits` read x (qubits[0] the low bit). */
interface DiagK {
  k: 'diagK';
  qubits: number[];
  d: Float64Array;
}

/** The factor a diagonal op applies to an amplitude whose bits are `bit(q)`. */
function diagonalFactor(op: POp, bit: (q: number) => number): [number, number] {
  if (op.k === 'phase') return bitsOf(op.mask).every((q) => bit(q) === 1) ? [op.c, op.s] : [1, 0];
  if (op.k !== 'diag1') throw new Error(`'${op.k}' is not diagonal`);
  if (!bitsOf(op.ctrl).every((q) => bit(q) === 1)) return [1, 0];
  const v = bit(op.q);
  return [op.d[2 * v]!, op.d[2 * v + 1]!];
}

/**
 * Diagonal ops on qubits active in the pass are gathered into one table over at most MAX_K
 * qubits: one sweep of the chunk instead of one (or two) per gate. The group is applied where
 * the first op that touches its qubits (or does not fit) comes; the ops it is moved past act
 * on other qubits, and diagonal ops commute with each other, so the product is exact.
 */
function fuseDiagonalRuns(ops: POp[], loc: Map<number, number>): Array<POp | DiagK> {
  const out: Array<POp | DiagK> = [];
  let group: POp[] = [];
  const qubits = new Set<number>();
  const flush = (): void => {
    // A table sweeps the whole chunk; the ops alone sweep only the amplitudes their controls
    // select. Fuse where that saves work (a controlled phase touches a quarter of the chunk:
    // five of them on six qubits cost less apart).
    if (group.reduce((sum, op) => sum + sweptFraction(op), 0) > 1.5) out.push(diagonalTable(group, [...qubits].sort((x, y) => x - y)));
    else out.push(...group);
    group = [];
    qubits.clear();
  };
  for (const op of ops) {
    const wires = wiresOf(op);
    if (isDiagonal(op) && wires.every((q) => loc.has(q))) {
      if (new Set([...qubits, ...wires]).size > MAX_K) flush();
      group.push(op);
      for (const q of wires) qubits.add(q);
      continue;
    }
    if (wires.some((q) => qubits.has(q))) flush();
    out.push(op);
  }
  flush();
  return out;
}

/** The share of a chunk a diagonal op's kernel sweeps (phase: where its bits are all 1; diag1: where its controls are). */
function sweptFraction(op: POp): number {
  if (op.k === 'phase') return 2 ** -bitsOf(op.mask).length;
  return op.k === 'diag1' ? 2 ** -bitsOf(op.ctrl).length : 0;
}

/** The product of diagonal ops as a table over `qs` (qs[0] the low bit of the entry index). */
function diagonalTable(ops: POp[], qs: number[]): DiagK {
  const d = new Float64Array(2 << qs.length);
  for (let x = 0; x < 2 ** qs.length; x++) {
    const bit = (q: number): number => (x >> qs.indexOf(q)) & 1;
    let re = 1;
    let im = 0;
    for (const op of ops) {
      const [c, s] = diagonalFactor(op, bit);
      [re, im] = [re * c - im * s, re * s + im * c];
    }
    d[2 * x] = re;
    d[2 * x + 1] = im;
  }
  return { k: 'diagK', qubits: qs, d };
}
