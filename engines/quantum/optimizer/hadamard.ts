/**
 * Hadamard reduction (Nam et al. 2018, figure 4): rewrites that remove H gates so that more
 * rotations and CX meet. On adjacent gates of a wire:
 *   H P H = P' H P'                   (P a quarter-turn Z rotation, P' its inverse)
 *   (H x H) CX (H x H) = CX reversed
 *   H P CX P^dagger H = P^dagger CX P (on the CX target)
 */
import { mul, phaseBetween, type Mat } from './complex.ts';
import { diagAngles, isDiagonal } from './classify.ts';
import { matrix1q, rz } from './gates1q.ts';
import { type Ir, type IrOp, isFree, type U1, wireIndex } from './ir.ts';

const H = matrix1q('h', []) as Mat;

function hPhase(op: IrOp | null | undefined): number | null {
  if (!op || op.k !== 'u' || !isFree(op)) return null;
  return phaseBetween(op.m, H, 1e-10);
}

/** The Z angle of a quarter-turn diagonal gate (+-pi/2), else null. */
function quarter(op: IrOp | null | undefined): number | null {
  if (!op || op.k !== 'u' || !isFree(op) || !isDiagonal(op.m)) return null;
  const [theta] = diagAngles(op.m);
  const r = ((theta % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
  if (Math.abs(r - Math.PI / 2) < 1e-10) return Math.PI / 2;
  if (Math.abs(r - (3 * Math.PI) / 2) < 1e-10) return -Math.PI / 2;
  return null;
}

/** One sweep of the three rules; returns whether anything changed. */
export function reduceHadamards(ir: Ir): boolean {
  const ops: Array<IrOp | null> = ir.ops.slice();
  const { wires, pos } = wireIndex(ops, ir.n);
  const touched = new Set<number>();
  const at = (q: number, i: number, d: number): number | undefined => wires[q][(pos[q].get(i) as number) + d];
  const fresh = (...idx: Array<number | undefined>): boolean => idx.every((i) => i !== undefined && !touched.has(i) && ops[i]);
  let changed = false;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (!op || touched.has(i)) continue;
    if (op.k === 'cx' && isFree(op)) {
      const { c, t } = op;
      const pc = at(c, i, -1), nc = at(c, i, 1), pt = at(t, i, -1), nt = at(t, i, 1);
      const hs = [pc, nc, pt, nt].map((j) => (j === undefined ? null : hPhase(ops[j])));
      if (fresh(pc, nc, pt, nt) && hs.every((h) => h !== null)) {
        for (const j of [pc, nc, pt, nt] as number[]) ops[j] = null;
        ops[i] = { k: 'cx', c: t, t: c };
        ir.phase += (hs as number[]).reduce((a, b) => a + b, 0);
        [pc, nc, pt, nt, i].forEach((j) => touched.add(j as number));
        changed = true;
        continue;
      }
      const p1 = pt, h1 = at(t, i, -2), p2 = nt, h2 = at(t, i, 2);
      if (!fresh(h1, p1, p2, h2)) continue;
      const a1 = quarter(ops[p1 as number]);
      const a2 = quarter(ops[p2 as number]);
      const g1 = hPhase(ops[h1 as number]);
      const g2 = hPhase(ops[h2 as number]);
      if (a1 === null || a2 === null || a1 !== -a2 || g1 === null || g2 === null) continue;
      const P1 = ops[p1 as number] as U1;
      const P2 = ops[p2 as number] as U1;
      ops[h1 as number] = null;
      ops[h2 as number] = null;
      ops[p1 as number] = { ...P2 };
      ops[p2 as number] = { ...P1 };
      ir.phase += g1 + g2;
      [h1, p1, p2, h2, i].forEach((j) => touched.add(j as number));
      changed = true;
      continue;
    }
    const g1 = hPhase(op);
    if (g1 === null || op.k !== 'u') continue;
    const q = op.q;
    const d = at(q, i, 1);
    const h2 = at(q, i, 2);
    if (!fresh(i, d, h2)) continue;
    const theta = quarter(ops[d as number]);
    const g2 = hPhase(ops[h2 as number]);
    if (theta === null || g2 === null) continue;
    const D = (ops[d as number] as U1).m;
    const before = mul((ops[h2 as number] as U1).m, mul(D, op.m));
    const p = rz(-theta);
    const ph = phaseBetween(before, mul(p, mul(H, p)), 1e-9);
    if (ph === null) continue;
    ops[i] = { k: 'u', q, m: p };
    ops[d as number] = { k: 'u', q, m: H };
    ops[h2 as number] = { k: 'u', q, m: p };
    ir.phase += ph;
    [i, d, h2].forEach((j) => touched.add(j as number));
    changed = true;
  }
  if (changed) ir.ops = ops.filter((o): o is IrOp => o !== null);
  return changed;
}
