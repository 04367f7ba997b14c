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

/**
 * Every term's parity key is global (path variables are never reused), and equal keys merge
 * wherever they occur, so the choice is a small optimisation over per-key angle sums: a
 * greedy pass in program order, then flips of single groups while the count of non-zero
 * sums (rotations left) drops.
 */
export function choosePolarities(ir: Ir): void {
  const val: Parity[] = Array.from({ length: ir.n }, (_, q) => ({ vars: [q], neg: false }));
  let nextVar = ir.n;
  const ops = ir.ops;
  const sum = new Map<string, number>();
  const groups = new Map<number, { terms: Array<[string, number]>; members: number[]; sign: number }>();
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    const grp = op.k === 'u' || op.k === 'cx' ? op.grp : undefined;
    if (op.k === 'u' && isFree(op) && isDiagonal(op.m)) {
      const [theta] = diagAngles(op.m);
      const key = val[op.q].vars.join(',');
      const t = val[op.q].neg ? -theta : theta;
      if (grp !== undefined) {
        const g = groups.get(grp) ?? { terms: [], members: [], sign: 1 };
        g.terms.push([key, t]);
        g.members.push(i);
        groups.set(grp, g);
      } else sum.set(key, (sum.get(key) ?? 0) + t);
    } else if (op.k === 'u' && isFree(op) && isXLike(op.m)) val[op.q] = { vars: val[op.q].vars, neg: !val[op.q].neg };
    else if (op.k === 'cx' && isFree(op)) val[op.t] = { vars: xor(val[op.t].vars, val[op.c].vars), neg: val[op.t].neg !== val[op.c].neg };
    else for (const q of qubitsOf(op)) val[q] = { vars: [nextVar++], neg: false };
  }
  const gain = (g: { terms: Array<[string, number]> }, s: number): number =>
    g.terms.filter(([key, t]) => isZeroMod2Pi((sum.get(key) ?? 0) + s * t)).length;
  const apply = (g: { terms: Array<[string, number]> }, s: number): void => {
    for (const [key, t] of g.terms) sum.set(key, (sum.get(key) ?? 0) + s * t);
  };
  // Greedy in program order (map order is insertion order).
  for (const g of groups.values()) {
    g.sign = gain(g, -1) > gain(g, 1) ? -1 : 1;
    apply(g, g.sign);
  }
  const nonZero = (keys: Iterable<string>): number => {
    let k = 0;
    for (const key of keys) if (!isZeroMod2Pi(sum.get(key) ?? 0)) k++;
    return k;
  };
  for (let sweep = 0; sweep < 10; sweep++) {
    let improved = false;
    for (const g of groups.values()) {
      const keys = new Set(g.terms.map(([key]) => key));
      const before = nonZero(keys);
      apply(g, -2 * g.sign);
      if (nonZero(keys) < before) {
        g.sign = -g.sign;
        improved = true;
      } else apply(g, 2 * g.sign);
    }
    if (!improved) break;
  }
  for (const g of groups.values()) {
    if (g.sign > 0) continue;
    for (const j of g.members) {
      const o = ops[j];
      if (o.k === 'u') ops[j] = { ...o, m: phase(-diagAngles(o.m)[0]) };
    }
  }
}
