/**
 * Phase-polynomial resynthesis (level 3). A region of CX, X and Z-diagonal gates is a
 * diagonal phase polynomial followed by an affine reversible map: every Z rotation acts on
 * an affine parity of the region's inputs, and all of them commute, so they may be applied
 * in any order. The region is rewritten as a parity network that visits every parity once
 * (the recursive Gray-code construction of Amy, Azimzadeh and Mosca, "On the CNOT-complexity
 * of CNOT-phase circuits", 2018), then the CX network that brings the wires to the region's
 * output parities (Gaussian elimination, the better of row and column order), then the X
 * gates of the output constants. A region is only replaced when that has fewer CX (and no
 * more gates) or the same CX and fewer gates.
 *
 * Regions are grown greedily in program order: a gate joins the current region unless one of
 * its wires is "tainted", i.e. follows (through wires) a gate that was left out after the
 * region had started on it. That keeps each region convex, so the gates left out split into
 * those that run before it and those after.
 */
import { phaseBetween, type Mat } from './complex.ts';
import { diagAngles, isDiagonal, isXLike } from './classify.ts';
import { matrix1q, rz } from './gates1q.ts';
import { flip, get, unit, weight, xorInto, type Vec } from './gf2.ts';
import { greedySynth } from './greedysynth.ts';
import { productForms } from './cubic.ts';
import type { LocalOp, PhasePoly } from './phasepoly-types.ts';

export type { LocalOp, PhasePoly };
import { isFree, qubitsOf, type Ir, type IrOp } from './ir.ts';
import { invert, linearSynth } from './linsynth.ts';

export { flip, get, unit, weight, xorInto, type Vec } from './gf2.ts';
export { linearSynth } from './linsynth.ts';

const X = matrix1q('x', []) as Mat;
const FOUR_PI = 4 * Math.PI;

type Kind = 'diag' | 'x' | 'cx' | null;

function kindOf(op: IrOp): Kind {
  if (!isFree(op)) return null;
  if (op.k === 'cx') return 'cx';
  if (op.k !== 'u') return null;
  if (isDiagonal(op.m)) return 'diag';
  if (isXLike(op.m)) return 'x';
  return null;
}

/** Splits ops into (before, region, after) with the region maximal from the front, convex. */
export function splitRegion(ops: IrOp[], n: number, maxRegion = Infinity): { before: IrOp[]; region: IrOp[]; after: IrOp[] } {
  const tainted = new Uint8Array(n);
  const active = new Uint8Array(n);
  const before: IrOp[] = [];
  const region: IrOp[] = [];
  const after: IrOp[] = [];
  for (const op of ops) {
    const qs = qubitsOf(op);
    const kind = kindOf(op);
    if (kind && region.length < maxRegion && qs.every((q) => !tainted[q])) {
      region.push(op);
      for (const q of qs) active[q] = 1;
      continue;
    }
    if (qs.some((q) => tainted[q] || active[q])) {
      after.push(op);
      for (const q of qs) tainted[q] = 1;
    } else before.push(op);
  }
  return { before, region, after };
}

const keyOf = (v: Vec): string => Array.prototype.join.call(v, ',');


/** Reads a region on local wires 0..m-1 (wire index = position in `wires`). */
export function phasePolynomial(region: IrOp[], wires: number[]): PhasePoly {
  const m = wires.length;
  const words = Math.max(1, Math.ceil(m / 32));
  const local = new Map(wires.map((q, i) => [q, i]));
  const val = wires.map((_, i) => unit(words, i));
  const cst = new Uint8Array(m);
  const sums = new Map<string, { v: Vec; angle: number }>();
  let phase = 0;
  for (const op of region) {
    if (op.k === 'cx') {
      const c = local.get(op.c) as number;
      const t = local.get(op.t) as number;
      xorInto(val[t], val[c]);
      cst[t] ^= cst[c];
      continue;
    }
    if (op.k !== 'u') throw new Error('a phase region holds only CX and single-qubit gates');
    const q = local.get(op.q) as number;
    if (isDiagonal(op.m)) {
      const [theta, ph] = diagAngles(op.m);
      phase += ph;
      // rz(theta) on NOT p is rz(-theta) on p, exactly (no phase).
      const key = keyOf(val[q]);
      const s = sums.get(key) ?? { v: val[q].slice(), angle: 0 };
      s.angle += cst[q] ? -theta : theta;
      sums.set(key, s);
    } else {
      phase += phaseBetween(op.m, X, 1e-9) as number;
      cst[q] ^= 1;
    }
  }
  const { terms, phase: extra } = normalizeTerms(sums.values());
  return { m, words, terms, out: val, outConst: cst, phase: phase + extra };
}

/** Sums of angles per parity, reduced to (-pi, pi] (the sign of rz(a + 2 pi) to the phase); zeros dropped. */
export function normalizeTerms(sums: Iterable<{ v: Vec; angle: number }>): { terms: Array<{ v: Vec; angle: number }>; phase: number } {
  let phase = 0;
  const terms: Array<{ v: Vec; angle: number }> = [];
  for (const s of sums) {
    // rz(a + 2 pi) = -rz(a): keep the angle in (-pi, pi] and move the sign to the phase.
    let a = s.angle % FOUR_PI;
    if (a > 2 * Math.PI) a -= FOUR_PI;
    else if (a <= -2 * Math.PI) a += FOUR_PI;
    if (Math.abs(a) > Math.PI) {
      a -= Math.sign(a) * 2 * Math.PI;
      phase += Math.PI;
    }
    if (Math.abs(a) < 1e-12) continue;
    terms.push({ v: s.v, angle: a });
  }
  return { terms, phase };
}

/** Local operations: CX (control, target) or an rz on a wire. */

/**
 * The parity network: every term is brought onto some wire by CX gates and rotated there.
 * Returns the gates and the wire parities it leaves (as vectors over the inputs).
 */
function graySynth(p: PhasePoly, variant = 0): { ops: LocalOp[]; wires: Vec[] } {
  const { m, words } = p;
  const ops: LocalOp[] = [];
  const wires = Array.from({ length: m }, (_, i) => unit(words, i));
  // Terms in the basis of the current wire values (initially the inputs themselves).
  const cur = p.terms.map((t) => t.v.slice());
  const wt = cur.map(weight);
  const alive = new Uint8Array(cur.length).fill(1);
  const emitIfUnit = (t: number, i: number): void => {
    if (alive[t] && wt[t] === 1) {
      ops.push({ rz: [i, p.terms[t].angle] });
      alive[t] = 0;
    }
  };
  for (let t = 0; t < cur.length; t++) {
    if (wt[t] === 1) {
      let i = 0;
      while (!get(cur[t], i)) i++;
      emitIfUnit(t, i);
    }
  }
  const cx = (j: number, i: number): void => {
    // wire i <- wire i + wire j; a term holding i toggles j in the new basis.
    ops.push({ cx: [j, i] });
    xorInto(wires[i], wires[j]);
    for (let t = 0; t < cur.length; t++) {
      if (!alive[t] || !get(cur[t], i)) continue;
      const had = get(cur[t], j);
      flip(cur[t], j);
      wt[t] += had ? -1 : 1;
      emitIfUnit(t, i);
    }
  };
  interface Frame {
    S: number[];
    I: number[];
    i: number;
  }
  const all = [...Array(m).keys()];
  const stack: Frame[] = [{ S: cur.map((_, t) => t), I: all, i: -1 }];
  const count = new Int32Array(m);
  while (stack.length) {
    const f = stack.pop() as Frame;
    let S = f.S.filter((t) => alive[t]);
    if (S.length === 0) continue;
    if (f.i >= 0) {
      // While every term also holds some other wire j, fold j into the target wire.
      for (;;) {
        const and = new Uint32Array(words).fill(0xffffffff);
        for (const t of S) for (let k = 0; k < words; k++) and[k] &= cur[t][k];
        flip(and, f.i);
        let j = -1;
        for (let q = 0; q < m && j < 0; q++) if (get(and, q)) j = q;
        if (j < 0) break;
        cx(j, f.i);
        S = S.filter((t) => alive[t]);
        if (S.length === 0) break;
      }
      if (S.length === 0) continue;
    }
    if (f.I.length === 0) continue;
    count.fill(0);
    for (const t of S) {
      const v = cur[t];
      for (let k = 0; k < words; k++) {
        let x = v[k];
        while (x) {
          const b = 31 - Math.clz32(x & -x);
          count[k * 32 + b]++;
          x &= x - 1;
        }
      }
    }
    // Split on the wire that most terms agree on (variant 1: that most terms hold; variant 2:
    // the last such wire rather than the first).
    let best = f.I[0];
    let bestScore = -1;
    for (const j of f.I) {
      const s = variant === 1 ? count[j] : Math.max(count[j], S.length - count[j]);
      if (s > bestScore || (variant === 2 && s === bestScore)) {
        bestScore = s;
        best = j;
      }
    }
    const rest = f.I.filter((j) => j !== best);
    const S0 = S.filter((t) => !get(cur[t], best));
    const S1 = S.filter((t) => get(cur[t], best));
    const first = variant === 3 ? 1 : 0;
    if (f.i < 0) {
      const frames = [{ S: S0, I: rest, i: -1 }, { S: S1, I: rest, i: best }];
      stack.push(frames[first], frames[1 - first]);
    } else {
      const frames = [{ S: S0, I: rest, i: f.i }, { S: S1, I: rest, i: f.i }];
      stack.push(frames[first], frames[1 - first]);
    }
  }
  if (alive.some((a) => a)) throw new Error('parity network left a term unplaced');
  return { ops, wires };
}

/**
 * A network for polynomials whose terms all hold one or two wires, when those pairs form a
 * bipartite graph (the a_i + b_j terms of a multiplier's Toffolis): the wires of one side
 * are turned into a difference chain (c0, c0+c1, c1+c2, ...), so each wire of the other side
 * walks through a+c0, a+c1, a+c2, ... one CX per step; then the chain is undone and every
 * walker restored. About one CX per term where the Gray-code recursion spends two. Returns
 * null when the terms do not have that shape.
 */
function bipartiteSynth(p: PhasePoly): { ops: LocalOp[]; wires: Vec[] } | null {
  const { m, words } = p;
  const singles: LocalOp[] = [];
  const adj: Array<Map<number, number>> = Array.from({ length: m }, () => new Map());
  for (const t of p.terms) {
    const w = weight(t.v);
    const bits: number[] = [];
    for (let q = 0; q < m && bits.length < 3; q++) if (get(t.v, q)) bits.push(q);
    if (w === 1) singles.push({ rz: [bits[0], t.angle] });
    else if (w === 2) {
      adj[bits[0]].set(bits[1], t.angle);
      adj[bits[1]].set(bits[0], t.angle);
    } else return null;
  }
  // Two-colour the pair graph.
  const colour = new Int8Array(m).fill(-1);
  for (let s = 0; s < m; s++) {
    if (colour[s] >= 0 || adj[s].size === 0) continue;
    colour[s] = 0;
    const queue = [s];
    while (queue.length) {
      const u = queue.pop() as number;
      for (const v of adj[u].keys()) {
        if (colour[v] < 0) {
          colour[v] = 1 - colour[u];
          queue.push(v);
        } else if (colour[v] === colour[u]) return null;
      }
    }
  }
  let best: { ops: LocalOp[]; wires: Vec[] } | null = null;
  let bestCx = Infinity;
  for (const side of [0, 1]) {
    const chain = [...Array(m).keys()].filter((q) => colour[q] === 1 - side);
    const walkers = [...Array(m).keys()].filter((q) => colour[q] === side);
    if (chain.length === 0) continue;
    const at = new Map(chain.map((q, i) => [q, i]));
    const ops: LocalOp[] = [...singles];
    const wires = Array.from({ length: m }, (_, i) => unit(words, i));
    const cx = (c: number, t: number): void => {
      ops.push({ cx: [c, t] });
      xorInto(wires[t], wires[c]);
    };
    for (let j = chain.length - 1; j >= 1; j--) cx(chain[j - 1], chain[j]);
    const ends: Array<[number, number]> = [];
    for (const a of walkers) {
      let last = -1;
      for (const v of adj[a].keys()) last = Math.max(last, at.get(v) as number);
      for (let i = 0; i <= last; i++) {
        cx(chain[i], a);
        const angle = adj[a].get(chain[i]);
        if (angle !== undefined) ops.push({ rz: [a, angle] });
      }
      if (last >= 0) ends.push([a, chain[last]]);
    }
    for (let j = 1; j < chain.length; j++) cx(chain[j - 1], chain[j]);
    for (const [a, c] of ends) cx(c, a);
    const count = ops.filter((o) => 'cx' in o).length;
    if (count < bestCx) {
      bestCx = count;
      best = { ops, wires };
    }
  }
  return best;
}

/** Split rules tried for every polynomial (see graySynth). */
const VARIANTS = [0, 1, 2, 3];

/**
 * How hard a polynomial is synthesized. `classic`: only the Gray-code and chain networks,
 * read forwards, with an elimination fix-up (the synthesis the later constructions were added
 * to); kept as a second opinion, since a region made smaller can steer the rewrites after it
 * to a larger circuit.
 */
export interface SynthOptions {
  classic?: boolean;
}

/** Every parity network tried for a polynomial (null: that construction does not apply). */
function networks(p: PhasePoly, o: SynthOptions): Array<{ ops: LocalOp[]; wires: Vec[] }> {
  const out = VARIANTS.map((v) => graySynth(p, v));
  for (const net of [bipartiteSynth(p), o.classic ? null : greedySynth(p)]) if (net) out.push(net);
  return out;
}

/**
 * The same region read backwards: x -> e^{i phi(x)} |O x> is the inverse of
 * y -> e^{-i phi(O^-1 y)} |O^-1 y>, whose network (and fix-up) run in reverse put the fix-up
 * first and the rotations on the output parities. Null when O is singular (never for a region).
 */
function inverted(p: PhasePoly): PhasePoly | null {
  const inv = invert(p.out, p.m, p.words);
  if (!inv) return null;
  const terms = p.terms.map((t) => {
    const v = new Uint32Array(p.words);
    for (let k = 0; k < p.m; k++) if (get(t.v, k)) xorInto(v, inv[k]);
    return { v, angle: -t.angle };
  });
  return { m: p.m, words: p.words, terms, out: inv, outConst: new Uint8Array(p.m), phase: 0 };
}

/**
 * The cheapest (fewest CX) network plus fix-up of a polynomial, as local gates in order. The
 * networks are ranked with the quick fix-up; the two best get the thorough one.
 */
function cheapest(p: PhasePoly, o: SynthOptions): { ops: LocalOp[]; cx: number } {
  const ranked = networks(p, o).map((net) => {
    const fix = linearSynth(net.wires, p.out, p.m, p.words, false);
    return { net, fix, cx: fix.length + net.ops.filter((x) => 'cx' in x).length };
  });
  ranked.sort((a, b) => a.cx - b.cx);
  if (!o.classic) {
    for (const r of ranked.slice(0, 2)) {
      const fix = linearSynth(r.net.wires, p.out, p.m, p.words, true);
      if (fix.length < r.fix.length) {
        r.cx -= r.fix.length - fix.length;
        r.fix = fix;
      }
    }
  }
  let best = ranked[0];
  for (const r of ranked) if (r.cx < best.cx) best = r;
  return { ops: [...best.net.ops, ...best.fix.map(([c, t]): LocalOp => ({ cx: [c, t] }))], cx: best.cx };
}

/**
 * The gates of a phase polynomial on `wires` (local wire i is wires[i]): the parity network
 * with the fewest CX over the constructions (Gray-code split rules, bipartite chain, greedy),
 * each read forwards and backwards, its linear fix-up, then the output X gates. The
 * polynomial's own phase is not included.
 */
export function synthesizePolynomial(p: PhasePoly, wires: number[], o: SynthOptions = {}): IrOp[] {
  let best = cheapest(p, o);
  const back = o.classic ? null : inverted(p);
  if (back) {
    const r = cheapest(back, o);
    if (r.cx < best.cx) {
      const ops = r.ops.reverse().map((x): LocalOp => ('cx' in x ? x : { rz: [x.rz[0], -x.rz[1]] }));
      best = { ops, cx: r.cx };
    }
  }
  const out: IrOp[] = best.ops.map((x) => ('cx' in x ? { k: 'cx', c: wires[x.cx[0]], t: wires[x.cx[1]] } : { k: 'u', q: wires[x.rz[0]], m: rz(x.rz[1]) }));
  for (let i = 0; i < p.m; i++) if (p.outConst[i]) out.push({ k: 'u', q: wires[i], m: X });
  return out;
}

/**
 * Widest circuit whose regions are also written as CCZ-type products: the widest output the
 * statevector check proves (equivalence.ts, native). Wider outputs are proven on decision
 * diagrams, and on mod_adder_1024 (28 qubits) the products' wider parities took that proof
 * past its 2,000,000 nodes, where the form as read needs about 143,000.
 */
const PRODUCT_FORM_MAX_QUBITS = 26;

/** Rewrites one region; returns the new gates, or null when that would not be smaller. */
function rewriteRegion(region: IrOp[], ir: Ir, o: SynthOptions): IrOp[] | null {
  let oldCx = 0;
  for (const op of region) if (op.k === 'cx') oldCx++;
  if (oldCx < 2) return null;
  const wires = [...new Set(region.flatMap(qubitsOf))].sort((a, b) => a - b);
  const p = phasePolynomial(region, wires);
  // The polynomial as read, and (Clifford+T regions) as CCZ-type products found by a search
  // (cubic.ts); the smallest (gates plus CX) that beats the region as it stands.
  let best: { out: IrOp[]; cx: number; phase: number } | null = null;
  for (const q of [p, ...(ir.n <= PRODUCT_FORM_MAX_QUBITS ? productForms(p) : [])]) {
    const out = synthesizePolynomial(q, wires, o);
    let cx = 0;
    for (const op of out) if (op.k === 'cx') cx++;
    const better = cx < oldCx ? out.length <= region.length : cx === oldCx && out.length < region.length;
    if (better && (!best || cx + out.length < best.cx + best.out.length)) best = { out, cx, phase: q.phase };
  }
  if (!best) return null;
  ir.phase += best.phase;
  return best.out;
}

export interface PhaseRegionOptions extends SynthOptions {
  /** Largest region (gates) read at once; bigger stretches are cut into several. */
  maxRegion?: number;
}

/** Rewrites every CX-phase region that gets smaller; returns whether anything changed. */
export function resynthesizePhaseRegions(ir: Ir, o: PhaseRegionOptions = {}): boolean {
  const maxRegion = o.maxRegion ?? 4000;
  let rest = ir.ops;
  const out: IrOp[] = [];
  let changed = false;
  while (rest.length) {
    const { before, region, after } = splitRegion(rest, ir.n, maxRegion);
    out.push(...before);
    if (region.length === 0) {
      out.push(...after);
      break;
    }
    const rewritten = rewriteRegion(region, ir, o);
    if (rewritten) changed = true;
    out.push(...(rewritten ?? region));
    rest = after;
  }
  if (changed) ir.ops = out;
  return changed;
}
