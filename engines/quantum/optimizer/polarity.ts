/**
 * Chooses the T polarity of each CCZ decomposition (CCZ = CCZ^dagger, so all seven T angles
 * may be negated together) so that its phase terms cancel the terms already on the same
 * parities (the phase-polynomial view of merge.ts), greedily in program order.
 */
import { diagAngles, isDiagonal, isXLike } from './classify.ts';
import { phase } from './gates1q.ts';
import { isFree, qubitsOf, type Ir, type IrOp } from './ir.ts';

interface Parity {
  vars: number[];
  neg: boolean;
}

function xor(a: number[], b: number[]): number[] {
  const set = new Set(a);
  for (const x of b) if (set.has(x)) set.delete(x);
  else set.add(x);
  return [...set].sort((x, y) => x - y);
}

const TWO_PI = 2 * Math.PI;
const isZeroMod2Pi = (x: number): boolean => {
  const r = ((x % TWO_PI) + TWO_PI) % TWO_PI;
  return r < 1e-9 || TWO_PI - r < 1e-9;
};

export function choosePolarities(ir: Ir): void {
  const val: Parity[] = Array.from({ length: ir.n }, (_, q) => ({ vars: [q], neg: false }));
  let nextVar = ir.n;
  const acc = new Map<string, number>();
  const decided = new Set<number>();
  const step = (v: Parity[], op: IrOp, record: ((key: string, theta: number) => void) | null): void => {
    if (op.k === 'u' && isFree(op) && isDiagonal(op.m)) {
      const [theta] = diagAngles(op.m);
      record?.(v[op.q].vars.join(','), v[op.q].neg ? -theta : theta);
    } else if (op.k === 'u' && isFree(op) && isXLike(op.m)) v[op.q] = { vars: v[op.q].vars, neg: !v[op.q].neg };
    else if (op.k === 'cx' && isFree(op)) v[op.t] = { vars: xor(v[op.t].vars, v[op.c].vars), neg: v[op.t].neg !== v[op.c].neg };
    else for (const q of qubitsOf(op)) v[q] = { vars: [nextVar++], neg: false };
  };
  const ops = ir.ops;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    const grp = op.k === 'u' || op.k === 'cx' ? op.grp : undefined;
    if (grp !== undefined && !decided.has(grp)) {
      decided.add(grp);
      // Look ahead over the group's (contiguous) gates to learn its terms.
      const trial = val.map((p) => ({ ...p }));
      const terms: Array<[string, number]> = [];
      const members: number[] = [];
      for (let j = i; j < ops.length; j++) {
        const o = ops[j];
        if ((o.k !== 'u' && o.k !== 'cx') || o.grp !== grp) break;
        members.push(j);
        step(trial, o, (key, theta) => terms.push([key, theta]));
      }
      const zeros = (s: number): number => terms.filter(([key, theta]) => isZeroMod2Pi((acc.get(key) ?? 0) + s * theta)).length;
      if (zeros(-1) > zeros(1)) {
        for (const j of members) {
          const o = ops[j];
          if (o.k === 'u' && isDiagonal(o.m)) ops[j] = { ...o, m: phase(-diagAngles(o.m)[0]) };
        }
      }
    }
    const cur = ops[i];
    step(val, cur, (key, theta) => acc.set(key, (acc.get(key) ?? 0) + theta));
  }
}
