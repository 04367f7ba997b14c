/**
 * Level 3: picks, for each CCZ decomposition, which qubit carries the CX ladder, the gate
 * order (as written or mirrored) and the T polarity, so that it cancels best against its
 * neighbours. Greedy in program order; each choice is scored by simplifying a window of
 * gates around it.
 */
import { matrix1q, phase } from './gates1q.ts';
import { diagAngles } from './classify.ts';
import type { Ir, IrOp } from './ir.ts';
import type { Mat } from './complex.ts';

const T = matrix1q('t', []) as Mat;
const TDG = matrix1q('tdg', []) as Mat;

/** The 13-gate CCZ decomposition with the ladder on c (the same gates as controlled.ts). */
function ccz(a: number, b: number, c: number, grp: number): IrOp[] {
  const x = (p: number, q: number): IrOp => ({ k: 'cx', c: p, t: q, grp });
  const u = (q: number, m: Mat): IrOp => ({ k: 'u', q, m, grp });
  return [
    x(b, c), u(c, TDG), x(a, c), u(c, T), x(b, c), u(c, TDG), x(a, c),
    u(b, T), u(c, T), x(a, b), u(a, T), u(b, TDG), x(a, b),
  ];
}

function variants(a: number, b: number, c: number, grp: number): IrOp[][] {
  const out: IrOp[][] = [];
  const perms = [[a, b, c], [b, a, c], [a, c, b], [c, a, b], [b, c, a], [c, b, a]];
  for (const [p, q, r] of perms) {
    const base = ccz(p, q, r, grp);
    // CCZ is diagonal and self-inverse: the mirror (reversed, daggered) and the negated-angle
    // circuit are decompositions of it too.
    const flip = (ops: IrOp[]): IrOp[] => ops.map((o) => (o.k === 'u' ? { ...o, m: phase(-diagAngles(o.m)[0]) } : o));
    const mirrored = flip(base.slice().reverse());
    out.push(base, flip(base), mirrored, flip(mirrored));
  }
  return out;
}

/** Finds contiguous runs of one group: [start, end) by group id. */
function groupRuns(ops: IrOp[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < ops.length; ) {
    const o = ops[i];
    const g = o.k === 'u' || o.k === 'cx' ? o.grp : undefined;
    let j = i + 1;
    if (g !== undefined) {
      while (j < ops.length) {
        const p = ops[j];
        if ((p.k !== 'u' && p.k !== 'cx') || p.grp !== g) break;
        j++;
      }
      if (j - i === 13) runs.push([i, j]);
    }
    i = j;
  }
  return runs;
}

/** The window's gates on qubits renumbered 0..k-1 (scoring cost grows with the width). */
function compact(ops: IrOp[]): Ir {
  const index = new Map<number, number>();
  const m = (q: number): number => {
    let i = index.get(q);
    if (i === undefined) index.set(q, (i = index.size));
    return i;
  };
  const out = ops.map((o): IrOp => {
    if (o.k === 'u') return { ...o, q: m(o.q) };
    if (o.k === 'cx') return { ...o, c: m(o.c), t: m(o.t) };
    if (o.k === 'u2') return { ...o, q: [m(o.q[0]), m(o.q[1])] };
    return { ...o, qs: o.qs.map(m) };
  });
  return { n: index.size, ops: out, phase: 0 };
}

/** Returns whether the search ran (there were CCZ groups, and not too many). */
export function chooseToffoliForms(ir: Ir, score: (window: Ir) => number, window = 24, maxGroups = 300): boolean {
  const runs = groupRuns(ir.ops);
  if (runs.length === 0 || runs.length > maxGroups) return false;
  const ops = ir.ops;
  for (const [s, e] of runs) {
    const first = ops[s];
    const second = ops[s + 2];
    if (first.k !== 'cx' || second.k !== 'cx') continue;
    const [a, b, c] = [second.c, first.c, first.t];
    const grp = first.grp as number;
    const lo = Math.max(0, s - window);
    const hi = Math.min(ops.length, e + window);
    const before = ops.slice(lo, s);
    const after = ops.slice(e, hi);
    let best = ops.slice(s, e);
    let bestScore = score(compact([...before, ...best, ...after]));
    for (const v of variants(a, b, c, grp)) {
      const sc = score(compact([...before, ...v, ...after]));
      if (sc < bestScore) {
        bestScore = sc;
        best = v;
      }
    }
    for (let k = 0; k < 13; k++) ops[s + k] = best[k];
  }
  return true;
}
