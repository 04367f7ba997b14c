/** Two-qubit blocks: synthesis of explicit 2q unitaries, and KAK resynthesis of CX runs (level 3). */
import { isFree, qubitsOf, type Ir, type IrOp } from './ir.ts';
import { identity, mul, type Mat } from './complex.ts';
import { matrixOf, synth2q } from './kak.ts';

/** Replaces every 2q unitary operation by 1q gates and at most three CX. */
export function synthesizeUnitaries(ir: Ir): void {
  if (!ir.ops.some((o) => o.k === 'u2')) return;
  const out: IrOp[] = [];
  for (const op of ir.ops) {
    if (op.k !== 'u2') {
      out.push(op);
      continue;
    }
    const s = synth2q(op.m, op.q[0], op.q[1]);
    for (const o of s.ops) out.push(op.cond && o.k !== 'op' ? { ...o, cond: op.cond } : o);
    if (!op.cond) ir.phase += s.phase;
  }
  ir.ops = out;
}

/** CX count plus the cost of each fused 1q run. */
function blockCost(ops: IrOp[], cost1q: (m: Mat) => number): number {
  const run = new Map<number, Mat>();
  let cost = 0;
  const flush = (q: number): void => {
    const m = run.get(q);
    if (m) cost += cost1q(m);
    run.delete(q);
  };
  for (const op of ops) {
    if (op.k === 'u') run.set(op.q, mul(op.m, run.get(op.q) ?? identity(2)));
    else if (op.k === 'cx') {
      flush(op.c);
      flush(op.t);
      cost++;
    }
  }
  for (const q of [...run.keys()]) flush(q);
  return cost;
}

interface Block {
  a: number;
  b: number;
  idx: number[];
  cx: number;
}

/**
 * Collects maximal runs of gates on one pair of qubits and resynthesizes each run whose
 * unitary needs fewer CX than it holds. Returns whether anything changed.
 */
export function resynthesize2q(ir: Ir, cost1q: (m: Mat) => number): boolean {
  const open = new Array<Block | null>(ir.n).fill(null);
  const pending: number[][] = Array.from({ length: ir.n }, () => []);
  const blocks: Block[] = [];
  const close = (q: number): void => {
    const blk = open[q];
    if (!blk) return;
    open[blk.a] = null;
    open[blk.b] = null;
  };
  ir.ops.forEach((op, i) => {
    if (op.k === 'u' && isFree(op)) {
      const blk = open[op.q];
      if (blk) blk.idx.push(i);
      else pending[op.q].push(i);
      return;
    }
    if (op.k === 'cx' && isFree(op)) {
      const bc = open[op.c];
      if (bc && bc === open[op.t]) {
        bc.idx.push(i);
        bc.cx++;
        return;
      }
      close(op.c);
      close(op.t);
      const blk: Block = { a: op.c, b: op.t, idx: [...pending[op.c], ...pending[op.t], i].sort((x, y) => x - y), cx: 1 };
      pending[op.c] = [];
      pending[op.t] = [];
      open[op.c] = blk;
      open[op.t] = blk;
      blocks.push(blk);
      return;
    }
    for (const q of qubitsOf(op)) {
      close(q);
      pending[q] = [];
    }
  });
  const replace = new Map<number, IrOp[]>();
  const drop = new Set<number>();
  let changed = false;
  for (const blk of blocks) {
    if (blk.cx < 2) continue;
    const ops = blk.idx.map((i) => ir.ops[i]);
    const m = matrixOf(ops, blk.a, blk.b);
    let s: ReturnType<typeof synth2q>;
    try {
      s = synth2q(m, blk.a, blk.b);
    } catch {
      // Numerically borderline blocks keep their gates.
      continue;
    }
    // Fewer CX, and no more gates once 1q runs are fused and written in the target basis.
    if (s.cx >= blk.cx || blockCost(s.ops, cost1q) > blockCost(ops, cost1q)) continue;
    ir.phase += s.phase;
    blk.idx.forEach((i) => drop.add(i));
    replace.set(blk.idx[blk.idx.length - 1], s.ops);
    changed = true;
  }
  if (!changed) return false;
  const out: IrOp[] = [];
  ir.ops.forEach((op, i) => {
    const r = replace.get(i);
    if (r) out.push(...r);
    else if (!drop.has(i)) out.push(op);
  });
  ir.ops = out;
  return true;
}

