/**
 * Gate fusion for the native statevector planner: runs of one-qubit gates become one 2x2,
 * which is absorbed into the next non-diagonal two-qubit gate (a dense 4x4); consecutive
 * two-qubit gates on the same pair multiply into one; bare CX and swaps stay permutations.
 * Fewer, denser ops: each costs a sweep over the chunk in cache, and the arithmetic of a
 * fused 4x4 is the same as that of the gates it replaces.
 */
import type { Operation } from '../circuit.ts';
import { gateMatrix } from '../gates.ts';
import { kron, matmul } from '../matrix.ts';
import { compileOp } from './fusion.ts';
import type { Step } from './steps.ts';

/** Planner ops, on global qubits. Dense matrices list targets low matrix bit first. */
export type POp =
  | { k: 'dense'; targets: number[]; m: Float64Array; ctrl: number }
  | { k: 'diag1'; q: number; d: Float64Array; ctrl: number }
  | { k: 'phase'; mask: number; c: number; s: number }
  | { k: 'x'; q: number; ctrl: number }
  | { k: 'swap'; a: number; b: number; ctrl: number };

export const bitsOf = (mask: number): number[] => {
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

export function wiresOf(op: POp): number[] {
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

