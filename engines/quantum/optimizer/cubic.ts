/**
 * Fewer CCZ-type products for a Clifford+T phase polynomial (level 3). A polynomial whose
 * rotations are all multiples of pi/4 is, as a function of its inputs, pi/4 times a
 * polynomial over Z8: a parity p with coefficient a adds a sum x_i - 2 a sum x_i x_j +
 * 4 a sum x_i x_j x_k over its wires. Its cubic part is pi C(x) for a cubic form C over GF(2),
 * and any way of writing C as a sum of products of three parities (u.x)(v.x)(w.x) gives the
 * same e^{i pi C}; each product costs the seven rotations of a CCZ on u, v and w, and what is
 * left (quadratic and linear) is written with rotations on one and two wires. The products
 * are searched as in the flip graphs of Kauers and Moosbauer ("Flip graphs for matrix
 * multiplication", 2023): from one product per cubic monomial, two products sharing a factor
 * s are rewritten (s v w + s v' w' = s (v + v') w' + s v (w + w')), two sharing two factors
 * merge (s v w + s v w' = s v (w + w')), and products that vanish or have no cubic part go
 * (the remainder takes them). The fewest products, then the lightest parities, seen in a
 * fixed number of seeded steps are kept, so the result is deterministic.
 */
import type { PhasePoly } from './phasepoly-types.ts';
import { normalizeTerms } from './phasepoly.ts';
import { mulberry32 } from '../sampling.ts';

const EIGHTH = Math.PI / 4;

/** Widest polynomial handled: parities are single 32-bit words here. */
const MAX_WIRES = 32;
/*
 * The rest are time bounds, not tuned results. Every region of every level-3 variant is
 * searched (a region is read again after each rewrite), so the walk must stay short: with
 * 300 monomials and 1500 steps per product the multipliers' level 3 took twice as long and
 * gained nothing there (their fewer products need wider parities and more CX); the regions
 * that gained (mod5_4, mod_mult_55, adder_8) hold a few to a dozen products.
 */
/** Most cubic monomials searched (the walk scans the products at every step). */
const MAX_MONOMIALS = 32;
/** Steps of the walk per product of the start, and the walk's bound. */
const STEPS_PER_PRODUCT = 200;
const MAX_STEPS = 6_400;
/** Decompositions handed back for synthesis (each costs a full region synthesis). */
const FORMS = 3;
/** Steps without a better decomposition before the walk goes back to the best one. */
const PATIENCE = 2_000;

type Product = [number, number, number];

const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

/** The Z8 polynomial of pi/4-multiple rotations: monomial (bit mask of 1 to 3 wires) -> coefficient. */
class Z8Poly {
  readonly c = new Map<number, number>();

  add(mask: number, a: number): void {
    const v = (((this.c.get(mask) ?? 0) + a) % 8 + 8) % 8;
    if (v) this.c.set(mask, v);
    else this.c.delete(mask);
  }

  /** a times the parity over the wires of `v`. */
  addParity(v: number, a: number): void {
    const bits: number[] = [];
    for (let x = v >>> 0; x; x &= x - 1) bits.push(31 - Math.clz32(x & -x));
    for (let i = 0; i < bits.length; i++) {
      const bi = (1 << bits[i]) >>> 0;
      this.add(bi, a);
      for (let j = i + 1; j < bits.length; j++) {
        const bij = (bi | (1 << bits[j])) >>> 0;
        this.add(bij, -2 * a);
        if (a % 2 === 0) continue;
        for (let k = j + 1; k < bits.length; k++) this.add((bij | (1 << bits[k])) >>> 0, 4 * a);
      }
    }
  }
}

/** The seven CCZ rotations of a product, in units of pi/4: pi u v w = pi/4 (u + v + w - u^v - u^w - v^w + u^v^w). */
function cczTerms([u, v, w]: Product): Array<[number, number]> {
  return [[u, 1], [v, 1], [w, 1], [(u ^ v) >>> 0, -1], [(u ^ w) >>> 0, -1], [(v ^ w) >>> 0, -1], [(u ^ v ^ w) >>> 0, 1]];
}

/** A product with no cubic part: a zero factor, two equal factors, or one the sum of the others. */
const degenerate = ([u, v, w]: Product): boolean => u === 0 || v === 0 || w === 0 || u === v || u === w || v === w || (u ^ v) === w;

/**
 * Adds `p` to the products (swap-removal keeps the array dense): merged with one sharing two
 * of its factors, the result added in turn; dropped when degenerate.
 */
function insert(ps: Product[], p: Product): void {
  for (;;) {
    if (degenerate(p)) return;
    let merged: Product | null = null;
    for (let j = 0; j < ps.length; j++) {
      merged = mergeTwo(p, ps[j]);
      if (!merged) continue;
      ps[j] = ps[ps.length - 1];
      ps.pop();
      break;
    }
    if (!merged) {
      ps.push(p);
      return;
    }
    p = merged;
  }
}

/** s v w + s v w' = s v (w + w') when two factors are shared (as multisets); else null. */
function mergeTwo(p: Product, q: Product): Product | null {
  for (let a = 0; a < 3; a++) {
    for (let b = 0; b < 3; b++) {
      if (p[a] !== q[b]) continue;
      const p1 = p[(a + 1) % 3];
      const p2 = p[(a + 2) % 3];
      const q1 = q[(b + 1) % 3];
      const q2 = q[(b + 2) % 3];
      if (p1 === q1) return [p[a], p1, (p2 ^ q2) >>> 0];
      if (p1 === q2) return [p[a], p1, (p2 ^ q1) >>> 0];
      if (p2 === q1) return [p[a], p2, (p1 ^ q2) >>> 0];
      if (p2 === q2) return [p[a], p2, (p1 ^ q1) >>> 0];
    }
  }
  return null;
}

/**
 * What a decomposition is likely to cost once written: its distinct rotation parities (one
 * rotation each), then their summed width (the CX that form them).
 */
function weightOf(ps: Product[]): number {
  const seen = new Set<number>();
  let width = 0;
  for (const p of ps) {
    for (const [v] of cczTerms(p)) {
      if (v === 0 || seen.has(v)) continue;
      seen.add(v);
      width += popcount(v);
    }
  }
  return seen.size * 8 + width;
}
const copy = (ps: Product[]): Product[] => ps.map((p) => p.slice() as Product);

/**
 * The flip-graph walk from `start`: the lightest decomposition seen for each number of
 * products (fewer products is not always cheaper: the merged factors are wider parities),
 * and of those the FORMS lightest.
 */
function search(start: Product[], seed: number): Product[][] {
  const rnd = mulberry32(seed);
  let cur = copy(start);
  const lightest = new Map<number, { ps: Product[]; weight: number }>([[cur.length, { ps: copy(cur), weight: weightOf(cur) }]]);
  let since = 0;
  const steps = Math.min(MAX_STEPS, STEPS_PER_PRODUCT * start.length);
  const sharing: number[] = [];
  for (let step = 0; step < steps && cur.length > 1; step++) {
    const i = Math.floor(rnd() * cur.length);
    const a = Math.floor(rnd() * 3);
    const s = cur[i][a];
    sharing.length = 0;
    for (let j = 0; j < cur.length; j++) if (j !== i && (cur[j][0] === s || cur[j][1] === s || cur[j][2] === s)) sharing.push(j);
    if (sharing.length === 0) continue;
    const j = sharing[Math.floor(rnd() * sharing.length)];
    const b = cur[j].indexOf(s);
    let v = cur[i][(a + 1) % 3];
    let w = cur[i][(a + 2) % 3];
    let v2 = cur[j][(b + 1) % 3];
    let w2 = cur[j][(b + 2) % 3];
    if (rnd() < 0.5) [v, w] = [w, v];
    if (rnd() < 0.5) [v2, w2] = [w2, v2];
    // Remove i and j (the higher index first, so the other stays in place), add the flip.
    for (const k of i > j ? [i, j] : [j, i]) {
      cur[k] = cur[cur.length - 1];
      cur.pop();
    }
    insert(cur, [s, (v ^ v2) >>> 0, w2]);
    insert(cur, [s, v, (w ^ w2) >>> 0]);
    since++;
    const seen = lightest.get(cur.length);
    const weight = weightOf(cur);
    if (!seen || weight < seen.weight) {
      if (!seen) since = 0;
      lightest.set(cur.length, { ps: copy(cur), weight });
    }
    if (since > PATIENCE) {
      // Back to the fewest products found, to walk on from there.
      cur = copy(lightest.get(Math.min(...lightest.keys()))!.ps);
      since = 0;
    }
  }
  // The likely cheapest few (each is synthesized in full by the caller).
  return [...lightest.values()].sort((x, y) => x.weight - y.weight).slice(0, FORMS).map((x) => x.ps);
}

const cache = new Map<string, PhasePoly[]>();

/**
 * The polynomial written with CCZ-type products found by the walk, the few lightest (same
 * function of the inputs; the global phase in `phase`); empty when
 * the rotations are not all multiples of pi/4 or there is no cubic part to rewrite.
 */
export function productForms(p: PhasePoly): PhasePoly[] {
  if (p.m > MAX_WIRES || p.terms.length === 0) return [];
  const ints: Array<[number, number]> = [];
  for (const t of p.terms) {
    const q = t.angle / EIGHTH;
    const a = Math.round(q);
    if (Math.abs(q - a) > 1e-9) return [];
    ints.push([t.v[0] >>> 0, a]);
  }
  const key = `${p.m}|${ints.map(([v, a]) => `${v}:${a}`).join(',')}`;
  let found = cache.get(key);
  if (!found) {
    found = rewrite(p.m, ints);
    if (cache.size > 2000) cache.clear();
    cache.set(key, found);
  }
  return found.map((f) => ({ ...f, out: p.out, outConst: p.outConst, phase: p.phase + f.phase }));
}

/** The rewriting of one polynomial (its phase relative to the original's). */
function rewrite(m: number, ints: Array<[number, number]>): PhasePoly[] {
  const old = new Z8Poly();
  for (const [v, a] of ints) {
    if (popcount(v) > 24) return [];
    old.addParity(v, a);
  }
  const start: Product[] = [];
  for (const [mask, c] of old.c) {
    if (popcount(mask) !== 3) continue;
    if (c !== 4) throw new Error('a cubic coefficient of a pi/4 polynomial is not 0 or 4 mod 8');
    const bits: number[] = [];
    for (let x = mask; x; x &= x - 1) bits.push((x & -x) >>> 0);
    start.push(bits as Product);
  }
  if (start.length < 2 || start.length > MAX_MONOMIALS) return [];
  const first: Product[] = [];
  for (const p of start) insert(first, p);
  const forms = search(first, 0x5eed ^ start.length);
  return forms.map((ps) => written(m, ints, old, ps));
}

/** The polynomial as the given products plus a quadratic and linear remainder. */
function written(m: number, ints: Array<[number, number]>, old: Z8Poly, best: Product[]): PhasePoly {
  // The remainder: the old polynomial less the products, quadratic and linear only.
  const rest = new Z8Poly();
  for (const [mask, c] of old.c) rest.add(mask, c);
  const terms = new Map<number, number>();
  const addTerm = (v: number, a: number): void => {
    const s = (((terms.get(v) ?? 0) + a) % 8 + 8) % 8;
    if (s) terms.set(v, s);
    else terms.delete(v);
  };
  for (const prod of best) {
    for (const [v, a] of cczTerms(prod)) {
      if (v === 0) continue;
      rest.addParity(v, -a);
      addTerm(v, a);
    }
  }
  const pairs: Array<[number, number]> = [];
  for (const [mask, c] of rest.c) {
    const w = popcount(mask);
    if (w === 3) throw new Error('products left a cubic remainder');
    if (w === 2) pairs.push([mask, c]);
  }
  // A pair monomial c x_i x_j comes from the parity x_i + x_j with coefficient -c/2, whose
  // linear part the single-wire terms then take back.
  for (const [mask, c] of pairs) {
    if (c % 2 !== 0) throw new Error('an odd pair coefficient in a pi/4 polynomial');
    const b = (((-c / 2) % 8) + 8) % 8;
    rest.addParity(mask, -b);
    addTerm(mask, b);
  }
  for (const [mask, c] of rest.c) addTerm(mask, c);
  const words = 1;
  const norm = normalizeTerms([...terms].map(([v, a]) => ({ v: Uint32Array.of(v), angle: (a > 4 ? a - 8 : a) * EIGHTH })));
  const sOld = ints.reduce((s, [, a]) => s + a * EIGHTH, 0);
  const sNew = norm.terms.reduce((s, t) => s + t.angle, 0);
  // Old gates: e^{-i sOld/2} e^{i F}; new: e^{i norm.phase} e^{-i sNew/2} e^{i F} (see normalizeTerms).
  return { m, words, terms: norm.terms, out: [], outConst: new Uint8Array(m), phase: (sNew - sOld) / 2 + norm.phase };
}
