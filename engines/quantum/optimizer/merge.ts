/**
 * Rotation merging over phase polynomials (Nam et al. 2018): in stretches of CX, X and
 * diagonal gates every wire carries an affine parity of "path variables"; Z rotations on the
 * same parity merge into the first one. A non-diagonal gate gives its wire a fresh variable.
 * A parity that is carried by some wire at two times is carried at every time between
 * (fresh variables only shrink the old span), so the merge is exact.
 */
import { diagAngles, isDiagonal, isXLike } from './classify.ts';
import { rz } from './gates1q.ts';
import { isFree, qubitsOf, type Ir, type IrOp, type U1 } from './ir.ts';

interface Parity {
  vars: number[]; // sorted variable ids
  neg: boolean;
}

function xor(a: number[], b: number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else if (i >= a.length || b[j] < a[i]) out.push(b[j++]);
    else {
      i++;
      j++;
    }
  }
  return out;
}

const FOUR_PI = 4 * Math.PI;

/** Merges Z rotations on equal parities; returns whether the gate count dropped. */
export function mergeRotations(ir: Ir, placeLast = false): boolean {
  const val: Parity[] = Array.from({ length: ir.n }, (_, q) => ({ vars: [q], neg: false }));
  let nextVar = ir.n;
  const terms = new Map<string, { index: number; sign: number; angle: number }>();
  const ops: Array<IrOp | null> = ir.ops.slice();
  let removed = 0;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as IrOp;
    if (op.k === 'u' && isFree(op) && isDiagonal(op.m)) {
      const [theta, ph] = diagAngles(op.m);
      ir.phase += ph;
      const p = val[op.q];
      const key = p.vars.join(',');
      const sign = p.neg ? -1 : 1;
      const prior = terms.get(key);
      if (prior) {
        prior.angle += sign * prior.sign * theta;
        removed++;
        if (placeLast) {
          // Keep the term at its latest position instead (angle re-expressed in its sign).
          ops[prior.index] = null;
          prior.index = i;
          prior.angle *= prior.sign * sign;
          prior.sign = sign;
        } else ops[i] = null;
      } else {
        terms.set(key, { index: i, sign, angle: theta });
      }
      continue;
    }
    if (op.k === 'u' && isFree(op) && isXLike(op.m)) {
      val[op.q] = { vars: val[op.q].vars, neg: !val[op.q].neg };
      continue;
    }
    if (op.k === 'cx' && isFree(op)) {
      const c = val[op.c];
      const t = val[op.t];
      val[op.t] = { vars: xor(t.vars, c.vars), neg: t.neg !== c.neg };
      continue;
    }
    for (const q of qubitsOf(op)) val[q] = { vars: [nextVar++], neg: false };
  }
  for (const term of terms.values()) {
    const op = ops[term.index] as U1;
    // rz(theta + 2 pi) = -rz(theta): keep the angle in (-2 pi, 2 pi] and move the sign to the phase.
    let a = term.angle % FOUR_PI;
    if (a > 2 * Math.PI) a -= FOUR_PI;
    else if (a <= -2 * Math.PI) a += FOUR_PI;
    if (Math.abs(a) > Math.PI) {
      a -= Math.sign(a) * 2 * Math.PI;
      ir.phase += Math.PI;
    }
    if (Math.abs(a) < 1e-12) {
      ops[term.index] = null;
      removed++;
    } else ops[term.index] = { ...op, m: rz(a) };
  }
  ir.ops = ops.filter((o): o is IrOp => o !== null);
  return removed > 0;
}
