/** The optimizer's working form: single-qubit matrices, CX, and opaque non-unitary operations. */
import type { Condition, Operation } from '../circuit.ts';
import { adjoint, type Mat } from './complex.ts';

/** A single-qubit unitary. */
export interface U1 {
  k: 'u';
  q: number;
  m: Mat;
  cond?: Condition;
  /** Id of the CCZ decomposition this gate comes from (its T polarity may be flipped as a whole). */
  grp?: number;
}

/** CX with control c and target t. */
export interface Cx {
  k: 'cx';
  c: number;
  t: number;
  cond?: Condition;
  grp?: number;
}

/** A two-qubit unitary (qubits[0] least significant), left for KAK synthesis. */
export interface U2 {
  k: 'u2';
  q: [number, number];
  m: Mat;
  cond?: Condition;
}

/** measure, reset, barrier: kept as they are and never moved across. */
export interface Opaque {
  k: 'op';
  qs: number[];
  op: Operation;
}

export type IrOp = U1 | Cx | U2 | Opaque;

export interface Ir {
  n: number;
  ops: IrOp[];
  phase: number;
}

/**
 * A pass's rewritten op list: each op in turn, an op with an entry in `replace` swapped for it,
 * and slots a pass emptied (null) left out.
 */
export function spliceOps(ops: ReadonlyArray<IrOp | null>, replace: ReadonlyMap<number, readonly IrOp[]>): IrOp[] {
  const out: IrOp[] = [];
  ops.forEach((op, i) => {
    const r = replace.get(i);
    if (r) out.push(...r);
    else if (op) out.push(op);
  });
  return out;
}

export function qubitsOf(op: IrOp): number[] {
  switch (op.k) {
    case 'u':
      return [op.q];
    case 'cx':
      return [op.c, op.t];
    case 'u2':
      return op.q;
    case 'op':
      return op.qs;
  }
}

/** Whether an operation may be rewritten (unitary and unconditioned). */
/**
 * Each wire's operations (indices into `ops`, in order: `wires[q]`) and the place of each
 * operation on each of its wires (`pos[q].get(i)`), for rewrites that look along wires.
 */
export function wireIndex(ops: ReadonlyArray<IrOp | null>, n: number): { wires: number[][]; pos: Array<Map<number, number>> } {
  const wires: number[][] = Array.from({ length: n }, () => []);
  const pos: Array<Map<number, number>> = Array.from({ length: n }, () => new Map());
  ops.forEach((op, i) => {
    if (!op) return;
    for (const q of qubitsOf(op)) {
      pos[q].set(i, wires[q].length);
      wires[q].push(i);
    }
  });
  return { wires, pos };
}

export function isFree(op: IrOp): op is U1 | Cx | U2 {
  return op.k !== 'op' && !op.cond;
}

/**
 * The inverse circuit (gates reversed and adjoined, phase negated), for pushing the frame to
 * the start; null when the IR holds operations that have no inverse (measurements, conditions).
 */
export function inverseIr(ir: Ir): Ir | null {
  const ops: IrOp[] = [];
  for (let i = ir.ops.length - 1; i >= 0; i--) {
    const op = ir.ops[i];
    if (!isFree(op)) return null;
    ops.push(op.k === 'cx' ? op : { ...op, m: adjoint(op.m) });
  }
  return { n: ir.n, ops, phase: -ir.phase };
}
