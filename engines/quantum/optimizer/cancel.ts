/** Inverse cancellation of CX pairs and same-kind 1q merging, optionally through commuting gates. */
import { isIdentityUpToPhase, mul } from './complex.ts';
import { isDiagonal, isXType } from './classify.ts';
import { isFree, qubitsOf, type Ir, type IrOp } from './ir.ts';

/** Per-wire ordered indices of the live operations. */
function wires(ir: Ir, ops: Array<IrOp | null>): number[][] {
  const w: number[][] = Array.from({ length: ir.n }, () => []);
  ops.forEach((op, i) => {
    if (op) for (const q of qubitsOf(op)) w[q].push(i);
  });
  return w;
}

/** Whether `op` commutes with CX(c, t) by the simple rules (shared control, shared target, Z on control, X on target). */
function commutesWithCx(op: IrOp, c: number, t: number): boolean {
  if (!isFree(op)) return false;
  if (op.k === 'u') {
    if (op.q === c) return isDiagonal(op.m);
    if (op.q === t) return isXType(op.m);
    return true;
  }
  if (op.k === 'cx') {
    if (op.c === t || op.t === c) return false;
    return true;
  }
  return false;
}

/** Whether `op` commutes with a 1q gate of the given kind on q. */
function commutesWith1q(op: IrOp, q: number, diag: boolean): boolean {
  if (!isFree(op) || op.k !== 'cx') return false;
  return diag ? op.c === q : op.t === q;
}


/**
 * One sweep: each CX looks ahead (along its two wires) for an identical CX with only
 * commuting gates between (`commute` false: only adjacent ones), and removes both. Each 1q
 * gate merges with the next same-kind 1q gate on its wire the same way; identities vanish.
 * Returns whether anything changed.
 */
export function cancelPass(ir: Ir, commute: boolean): boolean {
  const ops: Array<IrOp | null> = ir.ops.slice();
  const w = wires(ir, ops);
  const pos: Map<number, number>[] = w.map((list) => new Map(list.map((i, k) => [i, k])));
  let changed = false;
  const after = (q: number, i: number): number => (pos[q].get(i) as number) + 1;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (!op || !isFree(op)) continue;
    if (op.k === 'cx') {
      const { c, t } = op;
      const a = w[c];
      const b = w[t];
      let ia = after(c, i);
      let ib = after(t, i);
      // Walk both wires in program order until something blocks.
      for (;;) {
        while (ia < a.length && !ops[a[ia]]) ia++;
        while (ib < b.length && !ops[b[ib]]) ib++;
        if (ia >= a.length || ib >= b.length) break;
        const j = Math.min(a[ia], b[ib]);
        const other = ops[j] as IrOp;
        if (other.k === 'cx' && isFree(other) && other.c === c && other.t === t) {
          ops[i] = null;
          ops[j] = null;
          changed = true;
          break;
        }
        if (!commute || !commutesWithCx(other, c, t)) break;
        if (a[ia] === j) ia++;
        if (b[ib] === j) ib++;
      }
    } else if (op.k === 'u') {
      const idPhase = isIdentityUpToPhase(op.m, 1e-10);
      if (idPhase !== null) {
        ops[i] = null;
        ir.phase += idPhase;
        changed = true;
        continue;
      }
      const diag = isDiagonal(op.m);
      const xt = isXType(op.m);
      const list = w[op.q];
      for (let k = after(op.q, i); k < list.length; k++) {
        const j = list[k];
        const other = ops[j];
        if (!other) continue;
        if (other.k === 'u' && isFree(other)) {
          // Moving op forward to `other` is valid: everything skipped commutes with it.
          const prod = mul(other.m, op.m);
          const ph = isIdentityUpToPhase(prod, 1e-10);
          if (ph !== null) {
            ops[i] = null;
            ops[j] = null;
            ir.phase += ph;
            changed = true;
          } else if ((diag && isDiagonal(other.m)) || (xt && isXType(other.m))) {
            ops[i] = null;
            ops[j] = { ...other, m: prod };
            changed = true;
          }
          break;
        }
        if (!commute || !commutesWith1q(other, op.q, diag) || !(diag || xt)) break;
      }
    }
  }
  if (changed) ir.ops = ops.filter((o): o is IrOp => o !== null);
  return changed;
}
