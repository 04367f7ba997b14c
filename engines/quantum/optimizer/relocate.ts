/**
 * Phase relocation (level 3): a Z rotation acts on a parity of path variables (merge.ts), and
 * it may be applied wherever some set of wires holds that parity. When the parity is a sum
 * of what the wires hold at the end of the circuit, the rotation can be taken out of its
 * place (where a CX pair often exists only to form that parity) and applied at the end. All
 * rotations moved so form one phase polynomial over the final wires, written as a single
 * parity network (phasepoly.ts), which shares its CX between terms: the many a_i + b_j
 * rotations of the Toffolis of a multiplier, each with its own CX pair in place, become one
 * network of about one CX per term. The pipeline keeps the result only when it is smaller.
 */
import { diagAngles, isDiagonal, isXLike } from './classify.ts';
import { isFree, qubitsOf, type Ir, type IrOp } from './ir.ts';
import { flip, get, normalizeTerms, synthesizePolynomial, unit, xorInto, type PhasePoly, type SynthOptions, type Vec } from './phasepoly.ts';

const keyOf = (v: Vec): string => Array.prototype.join.call(v, ',');

export interface RelocateOptions extends SynthOptions {
  /** Only rotations whose parity ends on a single wire (no CX needed at the end). */
  singleWireOnly?: boolean;
}

/** Moves every rotation whose parity the final wires span to the end; returns how many moved. */
export function relocatePhasesToEnd(ir: Ir, o: RelocateOptions = {}): number {
  if (ir.ops.some((op) => !isFree(op))) return 0;
  const n = ir.n;
  let V = n;
  for (const op of ir.ops) if (!(op.k === 'cx' || (op.k === 'u' && (isDiagonal(op.m) || isXLike(op.m))))) V += qubitsOf(op).length;
  const words = Math.max(1, Math.ceil(V / 32));
  const val = Array.from({ length: n }, (_, q) => unit(words, q));
  const cst = new Uint8Array(n);
  let next = n;
  const rec: Array<{ index: number; v: Vec; c: number; theta: number; ph: number }> = [];
  ir.ops.forEach((op, index) => {
    if (op.k === 'cx') {
      xorInto(val[op.t], val[op.c]);
      cst[op.t] ^= cst[op.c];
    } else if (op.k === 'u' && isDiagonal(op.m)) {
      const [theta, ph] = diagAngles(op.m);
      rec.push({ index, v: val[op.q].slice(), c: cst[op.q], theta, ph });
    } else if (op.k === 'u' && isXLike(op.m)) cst[op.q] ^= 1;
    else for (const q of qubitsOf(op)) {
      val[q] = unit(words, next++);
      cst[q] = 0;
    }
  });
  // Elimination basis of the final wire parities, each row remembering which wires it sums.
  const mw = Math.max(1, Math.ceil(n / 32));
  const rows: Array<{ v: Vec; mask: Vec; pivot: number }> = [];
  const lowest = (v: Vec): number => {
    for (let k = 0; k < v.length; k++) if (v[k]) return k * 32 + (31 - Math.clz32(v[k] & -v[k]));
    return -1;
  };
  const reduce = (v: Vec, mask: Vec): void => {
    for (const r of rows) {
      if (get(v, r.pivot)) {
        xorInto(v, r.v);
        xorInto(mask, r.mask);
      }
    }
  };
  for (let q = 0; q < n; q++) {
    const v = val[q].slice();
    const mask = unit(mw, q);
    reduce(v, mask);
    const pivot = lowest(v);
    if (pivot < 0) continue;
    // Keep rows fully reduced against each other so one pass of reduce() suffices.
    for (const r of rows) {
      if (get(r.v, pivot)) {
        xorInto(r.v, v);
        xorInto(r.mask, mask);
      }
    }
    rows.push({ v, mask, pivot });
  }
  const sums = new Map<string, { v: Vec; angle: number }>();
  const moved = new Set<number>();
  let phase = 0;
  const masks = rec.map((t) => {
    const v = t.v.slice();
    const mask = new Uint32Array(mw);
    reduce(v, mask);
    return lowest(v) >= 0 ? null : mask;
  });
  // Moved far from where the original circuit has them, multi-wire parities leave the
  // decision-diagram proof a diagonal of pair phases that doubles with every wire; the bench
  // proves wide outputs on path sums (../verify/pathsum-check.ts), where they cost nothing.
  const single = o.singleWireOnly ?? false;
  rec.forEach((t, k) => {
    const mask = masks[k];
    if (!mask) return;
    let c = t.c;
    let wires = 0;
    for (let q = 0; q < n; q++) if (get(mask, q)) {
      c ^= cst[q];
      wires++;
    }
    if (wires === 0 || (single && wires > 1)) return;
    moved.add(t.index);
    phase += t.ph;
    const key = keyOf(mask);
    const s = sums.get(key) ?? { v: mask, angle: 0 };
    s.angle += c ? -t.theta : t.theta;
    sums.set(key, s);
  });
  if (moved.size === 0) return 0;
  // The polynomial on the wires it touches, renumbered 0..m-1.
  const norm = normalizeTerms(sums.values());
  const used = [...new Set(norm.terms.flatMap((t) => [...Array(n).keys()].filter((q) => get(t.v, q))))].sort((a, b) => a - b);
  const m = used.length;
  const lw = Math.max(1, Math.ceil(m / 32));
  const terms = norm.terms.map((t) => {
    const v = new Uint32Array(lw);
    used.forEach((q, i) => {
      if (get(t.v, q)) flip(v, i);
    });
    return { v, angle: t.angle };
  });
  const poly: PhasePoly = { m, words: lw, terms, out: used.map((_, i) => unit(lw, i)), outConst: new Uint8Array(m), phase: 0 };
  const tail = m ? synthesizePolynomial(poly, used, o) : [];
  ir.ops = [...ir.ops.filter((_, i) => !moved.has(i)), ...tail];
  ir.phase += phase + norm.phase;
  return moved.size;
}
