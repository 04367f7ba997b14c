/**
 * Hadamards moved from a CX control to its targets (level 3). On a wire q, H, then only CX
 * gates controlled by q, then H is the same as those CX reversed, each between two H on its
 * own target:
 *   H_q CX(q, x) H_q = H_x CX(x, q) H_x
 * (both are CZ(q, x) with one side in the X basis), and CX sharing the control q commute, so
 * H_q CX(q, x1) ... CX(q, xk) H_q = (H_x1 CX(x1, q) H_x1) ... (H_xk CX(xk, q) H_xk).
 * Locally that trades two H for 2k, but an H that lands next to another H on x_i cancels it,
 * and the wire q joins the phase regions on both sides (the rotations there merge, the
 * parity networks span the whole stretch). A site is rewritten only when the H count drops
 * after those cancellations; the pipeline keeps the result only when the circuit is smaller.
 */
import { phaseBetween, type Mat } from './complex.ts';
import { matrix1q } from './gates1q.ts';
import { type Ir, type IrOp, isFree, spliceOps, wireIndex } from './ir.ts';

export const H = matrix1q('h', []) as Mat;

/** The phase of an unconditioned gate that is H up to phase, else null. */
export function hPhase(op: IrOp | null | undefined): number | null {
  if (!op || op.k !== 'u' || !isFree(op)) return null;
  return phaseBetween(op.m, H, 1e-10);
}

/**
 * One sweep over the wires: rewrites every site whose H count changes by at most `slack`
 * (by default only those where it drops), sites not overlapping; returns how many were
 * rewritten.
 */
export function flipHadamardControls(ir: Ir, slack = -1, maxCx = 8): number {
  const ops: Array<IrOp | null> = ir.ops.slice();
  const { wires, pos } = wireIndex(ops, ir.n);
  const near = (q: number, i: number, d: number): number | undefined => wires[q][(pos[q].get(i) as number) + d];
  // Ops a rewrite has used or whose neighbourhood it counted on: later sites leave them alone.
  const touched = new Set<number>();
  const replace = new Map<number, IrOp[]>();
  let rewritten = 0;
  for (let q = 0; q < ir.n; q++) {
    const w = wires[q];
    for (let k = 0; k < w.length; k++) {
      const open = w[k];
      if (touched.has(open) || hPhase(ops[open]) === null) continue;
      let e = k + 1;
      while (e < w.length && e - k - 1 < maxCx) {
        const op = ops[w[e]] as IrOp;
        if (op.k === 'cx' && isFree(op) && op.c === q && !touched.has(w[e])) e++;
        else break;
      }
      if (e === k + 1 || e >= w.length) continue;
      const close = w[e];
      if (touched.has(close) || hPhase(ops[close]) === null) continue;
      const cxs = w.slice(k + 1, e);
      // H count after the rewrite, each new H cancelling an H next to it on its target.
      let delta = -2;
      const around: number[] = [];
      const targets = new Set<number>();
      let clash = false;
      for (const i of cxs) {
        const x = (ops[i] as IrOp & { t: number }).t;
        if (targets.has(x)) clash = true;
        targets.add(x);
        for (const d of [-1, 1]) {
          const j = near(x, i, d);
          const cancels = j !== undefined && !touched.has(j) && hPhase(ops[j]) !== null;
          delta += cancels ? -1 : 1;
          if (j !== undefined) around.push(j);
        }
      }
      if (clash || delta > slack) continue;
      ir.phase += (hPhase(ops[open]) as number) + (hPhase(ops[close]) as number);
      ops[open] = null;
      ops[close] = null;
      for (const i of cxs) {
        const x = (ops[i] as IrOp & { t: number }).t;
        replace.set(i, [{ k: 'u', q: x, m: H }, { k: 'cx', c: x, t: q }, { k: 'u', q: x, m: H }]);
      }
      for (const j of [open, close, ...cxs, ...around]) touched.add(j);
      rewritten++;
      k = e;
    }
  }
  if (!rewritten) return 0;
  ir.ops = spliceOps(ops, replace);
  return rewritten;
}
