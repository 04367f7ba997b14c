/**
 * Hadamard-conjugated CX to phases (level 3): on a wire t, H, then only CX gates that target
 * t, then H is the same as those CX turned into CZ (H X H = Z), and CZ is diagonal:
 *   CZ(c, t) = e^{i pi/4} Rz_c(pi/2) Rz_t(pi/2) Rz_{c+t}(-pi/2)
 * written with one CX pair around the last rotation. Locally that is more gates, but the two
 * H gates go and the phase regions on both sides become one, so rotations merge and the
 * parity network is resynthesized over the whole stretch; the pipeline keeps this only when
 * the final circuit is smaller.
 */
import { phaseBetween, type Mat } from './complex.ts';
import { matrix1q, rz } from './gates1q.ts';
import { isFree, qubitsOf, spliceOps, type Ir, type IrOp } from './ir.ts';

const H = matrix1q('h', []) as Mat;
const isH = (op: IrOp | undefined): boolean => !!op && op.k === 'u' && isFree(op) && phaseBetween(op.m, H, 1e-10) !== null;

/** Rewrites every H (CX targeting t)+ H stretch on a wire; returns how many were rewritten. */
export function hadamardCxToPhases(ir: Ir, maxCx = 8): number {
  const ops: Array<IrOp | null> = ir.ops.slice();
  const wires: number[][] = Array.from({ length: ir.n }, () => []);
  ops.forEach((op, i) => {
    for (const q of qubitsOf(op as IrOp)) wires[q].push(i);
  });
  const replace = new Map<number, IrOp[]>();
  let rewritten = 0;
  for (let t = 0; t < ir.n; t++) {
    const w = wires[t];
    for (let k = 0; k < w.length; k++) {
      if (!isH(ops[w[k]] as IrOp)) continue;
      let e = k + 1;
      while (e < w.length && e - k - 1 < maxCx) {
        const op = ops[w[e]] as IrOp;
        if (op.k === 'cx' && isFree(op) && op.t === t && !replace.has(w[e])) e++;
        else break;
      }
      if (e === k + 1 || e >= w.length || !isH(ops[w[e]] as IrOp)) continue;
      ir.phase += (phaseBetween((ops[w[k]] as IrOp & { m: Mat }).m, H) as number) + (phaseBetween((ops[w[e]] as IrOp & { m: Mat }).m, H) as number);
      ops[w[k]] = null;
      ops[w[e]] = null;
      for (let j = k + 1; j < e; j++) {
        const c = (ops[w[j]] as IrOp & { c: number }).c;
        replace.set(w[j], [
          { k: 'u', q: c, m: rz(Math.PI / 2) },
          { k: 'u', q: t, m: rz(Math.PI / 2) },
          { k: 'cx', c, t },
          { k: 'u', q: t, m: rz(-Math.PI / 2) },
          { k: 'cx', c, t },
        ]);
        ir.phase += Math.PI / 4;
      }
      rewritten++;
      k = e;
    }
  }
  if (!rewritten) return 0;
  ir.ops = spliceOps(ops, replace);
  return rewritten;
}
