/**
 * Multipliers over GF(2)[x] with Karatsuba's products (level 3).
 *
 * A classical reversible circuit (X, CX, Toffoli, and CCZ between H on its target) that maps
 * a, b, c to a, b, L c + M (a, b) + d + f(a, b), with f bilinear and f's coefficient of a_i b_j
 * depending on i + j only (a Hankel form), computes a polynomial product a(x) b(x) followed by a
 * fixed linear map of its 2n - 1 coefficients (the reduction modulo the field's polynomial):
 * every gf2^n multiplier of the Nam suite has this form. As read, it takes n^2 Toffolis, one per
 * a_i b_j; Karatsuba's recursion takes 3 products of half the size for one of the full size,
 * 3^log2(n) in all (27 for n = 8, 729 for n = 64), each a Toffoli of a parity of a's wires, a
 * parity of b's wires and a set of c's wires. This module reads the map off the circuit
 * (symbolic simulation over GF(2), exact), checks the form, and writes the circuit anew: the
 * linear part (a CX network and X gates), then, between H on the product wires, one CCZ per
 * Karatsuba product with its operand sums made in place on the a and b wires (undone after the
 * product) and its c-side parity gathered on one wire. The optimizer then runs on that circuit
 * like on any other, and the smaller result is kept (index.ts).
 *
 * Published optimizers keep the n^2 products: what this rewrite saves is arithmetic, not
 * gate-level rewriting, and the benchmark says which circuits owe their figures to it.
 */
import type { Circuit, GateOp } from '../circuit.ts';
import { flip, get, unit, xorInto, type Vec } from './gf2.ts';
import { invert, linearSynth } from './linsynth.ts';

/** A wire's content as a polynomial over GF(2) of degree two at most. */
interface Poly {
  lin: Vec;
  c: number;
  /** Monomials x_i x_j (i < j) as i * n + j. */
  quad: Set<number>;
}

/** Largest circuit read: wires, and quadratic monomials held at once over all wires. */
const MAX_WIRES = 1024;
const MAX_MONOMIALS = 4_000_000;
/** Smallest factor length worth rewriting (below it Karatsuba saves no product). */
const MIN_FACTOR = 4;

const gate = (name: string, qubits: number[]): GateOp => ({ kind: 'gate', name, qubits, params: [] });
const plain = (op: Circuit['ops'][number]): op is GateOp => op.kind === 'gate' && !op.condition && !op.controls;

/**
 * The permutation the circuit computes, as one polynomial per wire, or null when it is not a
 * classical circuit of these gates or a wire passes degree two. H gates are followed as a frame:
 * between two H on a wire, CX reverse and a CCZ with that wire is a Toffoli onto it.
 */
export function readClassicalMap(circuit: Circuit): Poly[] | null {
  const n = circuit.numQubits;
  if (n > MAX_WIRES) return null;
  const words = Math.max(1, Math.ceil(n / 32));
  const wires: Poly[] = Array.from({ length: n }, (_, i) => ({ lin: unit(words, i), c: 0, quad: new Set<number>() }));
  const framed = new Uint8Array(n);
  let monomials = 0;
  const addInto = (t: Poly, s: Poly): void => {
    xorInto(t.lin, s.lin);
    t.c ^= s.c;
    for (const m of s.quad) {
      if (t.quad.delete(m)) monomials--;
      else {
        t.quad.add(m);
        monomials++;
      }
    }
  };
  const toffoli = (p: number, q: number, t: number): boolean => {
    const a = wires[p]!;
    const b = wires[q]!;
    if (a.quad.size || b.quad.size || p === t || q === t) return false;
    const target = wires[t]!;
    const ia = ones(a.lin, n);
    const ib = ones(b.lin, n);
    // (A + a0)(B + b0) = A B + b0 A + a0 B + a0 b0, with x_i x_i = x_i.
    const product: Poly = { lin: new Uint32Array(words), c: a.c & b.c, quad: new Set() };
    for (const i of ia) {
      for (const j of ib) {
        if (i === j) flip(product.lin, i);
        else {
          const m = i < j ? i * n + j : j * n + i;
          if (!product.quad.delete(m)) product.quad.add(m);
        }
      }
    }
    if (b.c) xorInto(product.lin, a.lin);
    if (a.c) xorInto(product.lin, b.lin);
    addInto(target, product);
    return monomials <= MAX_MONOMIALS;
  };
  for (const op of circuit.ops) {
    if (op.kind === 'barrier') continue;
    if (!plain(op)) return null;
    const q = op.qubits;
    const ok = ((): boolean => {
      switch (op.name) {
        case 'h':
          framed[q[0]!] ^= 1;
          return true;
        case 'x':
          if (framed[q[0]!]) return false;
          wires[q[0]!]!.c ^= 1;
          return true;
        case 'cx':
        case 'CX':
        case 'cnot': {
          const [c, t] = q as [number, number];
          if (framed[c] !== framed[t]) return false;
          // Between H on both wires a CX is the reversed CX.
          const [from, to] = framed[c] ? [t, c] : [c, t];
          addInto(wires[to]!, wires[from]!);
          return true;
        }
        case 'ccx':
        case 'toffoli':
          return !framed[q[0]!] && !framed[q[1]!] && !framed[q[2]!] && toffoli(q[0]!, q[1]!, q[2]!);
        case 'ccz': {
          const inFrame = q.filter((w) => framed[w]);
          if (inFrame.length !== 1) return false;
          const t = inFrame[0]!;
          const [p, r] = q.filter((w) => w !== t) as [number, number];
          return toffoli(p, r, t);
        }
        default:
          return false;
      }
    })();
    if (!ok) return null;
  }
  return framed.some((f) => f) ? null : wires;
}

function ones(v: Vec, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (get(v, i)) out.push(i);
  return out;
}

/** The map as a product of polynomials a(x) b(x), its coefficients sent to the wires by `reduction`. */
export interface PolynomialProduct {
  /** Wires of a and b, coefficient 0 first. */
  a: number[];
  b: number[];
  /** reduction[s]: the wires that coefficient s of a(x) b(x) is added to. */
  reduction: number[][];
}

/**
 * The quadratic part of the map as a polynomial product, or null when it is not one: the
 * factors are the two sides of the (bipartite, connected) graph of the monomials, each in wire
 * order or the reverse, and the factors' wires must come out unchanged.
 */
export function findPolynomialProduct(wires: Poly[]): PolynomialProduct | null {
  const n = wires.length;
  const side = new Int8Array(n).fill(-1);
  const neighbours = new Map<number, number[]>();
  for (const w of wires) {
    for (const m of w.quad) {
      const i = Math.floor(m / n);
      const j = m % n;
      if (!neighbours.has(i)) neighbours.set(i, []);
      if (!neighbours.has(j)) neighbours.set(j, []);
      neighbours.get(i)!.push(j);
      neighbours.get(j)!.push(i);
    }
  }
  if (neighbours.size === 0) return null;
  // Two-colour the graph from one vertex: connected and bipartite, or no product.
  const [first] = neighbours.keys();
  side[first!] = 0;
  const queue = [first!];
  for (let k = 0; k < queue.length; k++) {
    const v = queue[k]!;
    for (const u of neighbours.get(v)!) {
      if (side[u] === -1) {
        side[u] = 1 - side[v]!;
        queue.push(u);
      } else if (side[u] === side[v]) return null;
    }
  }
  if (queue.length !== neighbours.size) return null;
  const a: number[] = [];
  const b: number[] = [];
  for (const v of [...neighbours.keys()].sort((x, y) => x - y)) (side[v] === 0 ? a : b).push(v);
  if (a.length !== b.length || a.length < MIN_FACTOR) return null;
  // The factors' wires are controls only: each must end as it started.
  for (const v of [...a, ...b]) {
    const w = wires[v]!;
    if (w.c || w.quad.size || ones(w.lin, n).join() !== `${v}`) return null;
  }
  for (const bOrder of [b, [...b].reverse()]) {
    const reduction = hankel(wires, a, bOrder);
    if (reduction) return { a, b: bOrder, reduction };
  }
  return null;
}

/** Per coefficient s of the product, the wires whose monomials a_i b_j (i + j = s) are all present; null when some are present and some not. */
function hankel(wires: Poly[], a: number[], b: number[]): number[][] | null {
  const n = wires.length;
  const len = a.length;
  const posA = new Map(a.map((w, i) => [w, i]));
  const posB = new Map(b.map((w, i) => [w, i]));
  const reduction: number[][] = Array.from({ length: 2 * len - 1 }, () => []);
  for (let t = 0; t < n; t++) {
    const quad = wires[t]!.quad;
    if (!quad.size) continue;
    const count = new Int32Array(2 * len - 1);
    for (const m of quad) {
      const i = Math.floor(m / n);
      const j = m % n;
      const s = posA.has(i) ? posA.get(i)! + (posB.get(j) ?? NaN) : posA.get(j)! + (posB.get(i) ?? NaN);
      if (Number.isNaN(s)) return null;
      count[s]++;
    }
    let held = 0;
    for (let s = 0; s < 2 * len - 1; s++) {
      if (count[s] === 0) continue;
      // Coefficient s of a(x) b(x) has min(s, 2 len - 2 - s) + 1 monomials.
      if (count[s] !== Math.min(s, 2 * len - 2 - s) + 1) return null;
      reduction[s]!.push(t);
      held += count[s]!;
    }
    if (held !== quad.size) return null;
  }
  return reduction;
}

/**
 * Calls `leaf(aWire, bWire, coefficients)` for each product of Karatsuba's recursion on the
 * factors held by `a` and `b` (equal lengths), and `sum(from, to)` for the CX that make the
 * middle product's operands in place (each undone by the same call after it). `coefficients`
 * are the positions of a(x) b(x) the product is added to.
 */
export function karatsubaProducts(
  a: number[],
  b: number[],
  leaf: (aWire: number, bWire: number, coefficients: number[]) => void,
  sum: (from: number, to: number) => void,
): void {
  const walk = (a: number[], b: number[], place: (s: number[]) => number[]): void => {
    const len = a.length;
    if (len === 1) return leaf(a[0]!, b[0]!, place([0]));
    const h = Math.ceil(len / 2);
    const lo: [number[], number[]] = [a.slice(0, h), b.slice(0, h)];
    const hi: [number[], number[]] = [a.slice(h), b.slice(h)];
    // a b = lo (1 + x^h) + mid x^h + hi (x^h + x^2h), mid = (a_lo + a_hi)(b_lo + b_hi).
    walk(...lo, (s) => place(oddOnes([...s, ...s.map((v) => v + h)])));
    walk(...hi, (s) => place(oddOnes([...s.map((v) => v + h), ...s.map((v) => v + 2 * h)])));
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < len - h; i++) pairs.push([hi[0][i]!, lo[0][i]!], [hi[1][i]!, lo[1][i]!]);
    for (const [from, to] of pairs) sum(from, to);
    walk(...lo, (s) => place(s.map((v) => v + h)));
    for (const [from, to] of pairs) sum(from, to);
  };
  walk(a, b, (s) => s);
}

/** The values that occur an odd number of times, sorted. */
function oddOnes(values: number[]): number[] {
  const odd = new Set<number>();
  for (const v of values) if (!odd.delete(v)) odd.add(v);
  return [...odd].sort((x, y) => x - y);
}

/** How the products are written: in place (windows) down to factors of `schoolbook` wires, or gathered per product. */
export interface ProductForm {
  inPlace: boolean;
  /** Factors this long or shorter are multiplied by their n^2 products (in place only). */
  schoolbook: number;
}

/**
 * The forms worth optimizing (each the smallest of the forms on some multiplier of the Nam
 * suite at level 3): in place with schoolbook factors of 2 wires (gf2^8, gf2^16 to gf2^64) or 3
 * (gf2^9, gf2^10), and, for small multipliers, products gathered from scratch (gf2^4, gf2^7,
 * where the windows' CX ladders cost more than they share). Whether the best of them beats the
 * gate-level result is decided in index.ts.
 */
export function productForms(thorough: boolean): ProductForm[] {
  const inPlace = [{ inPlace: true, schoolbook: 2 }];
  return thorough ? [...inPlace, { inPlace: true, schoolbook: 3 }, { inPlace: false, schoolbook: 1 }] : inPlace;
}

/**
 * The circuit rewritten with Karatsuba's products in each form, or [] when it is not a
 * multiplier of this kind. Exact: each computes the same permutation, with no phase.
 */
export function karatsubaMultipliers(circuit: Circuit, forms: ProductForm[]): Circuit[] {
  const wires = readClassicalMap(circuit);
  const product = wires && findPolynomialProduct(wires);
  if (!wires || !product) return [];
  const out: Circuit[] = [];
  for (const form of forms) {
    const rewritten = writeMultiplier(circuit, wires, product, form);
    if (rewritten) out.push(rewritten);
  }
  return out;
}

/** One form of the rewrite; null when it cannot be written so (in place with dependent windows, or a singular linear part). */
function writeMultiplier(circuit: Circuit, wires: Poly[], product: PolynomialProduct, form: ProductForm): Circuit | null {
  const n = circuit.numQubits;
  const words = Math.max(1, Math.ceil(n / 32));
  const ops: GateOp[] = [];
  // The affine part: identity on a and b, L c + M (a, b) + d elsewhere.
  let network: Array<[number, number]>;
  try {
    network = linearSynth(
      Array.from({ length: n }, (_, i) => unit(words, i)),
      wires.map((w) => w.lin),
      n,
      words,
    );
  } catch {
    return null;
  }
  for (const [c, t] of network) ops.push(gate('cx', [c, t]));
  wires.forEach((w, i) => w.c && ops.push(gate('x', [i])));
  // Then the products, as phases between H on every wire a product reaches: there, adding a
  // product to a wire is a CCZ onto it, and a CX from u to v is the CX from v to u.
  const reached = [...new Set(product.reduction.flat())].sort((x, y) => x - y);
  const emit: Emit = {
    cx: (from, to) => ops.push(gate('cx', [to, from])),
    sum: (from, to) => ops.push(gate('cx', [from, to])),
    leaf: (aw, bw, onto) => ops.push(gate('ccz', [aw, bw, onto])),
  };
  for (const w of reached) ops.push(gate('h', [w]));
  if (form.inPlace) {
    if (!productsInPlace(product, reached, emit, form.schoolbook)) return null;
  } else {
    karatsubaProducts(
      product.a,
      product.b,
      (aw, bw, coefficients) => {
        const hit = oddOnes(coefficients.flatMap((s) => product.reduction[s]!));
        if (!hit.length) return;
        const [onto, ...rest] = hit as [number, ...number[]];
        for (const w of rest) emit.cx(onto, w);
        emit.leaf(aw, bw, onto);
        for (let i = rest.length - 1; i >= 0; i--) emit.cx(onto, rest[i]!);
      },
      emit.sum,
    );
  }
  for (const w of reached) ops.push(gate('h', [w]));
  return { ...circuit, ops };
}

/** What the product stage writes, in the computational frame of the output wires. */
interface Emit {
  /** Output wire `to` += output wire `from`. */
  cx(from: number, to: number): void;
  /** Factor wire `to` += factor wire `from` (a middle product's operand). */
  sum(from: number, to: number): void;
  /** Output wire `onto` += a b. */
  leaf(aWire: number, bWire: number, onto: number): void;
}

/**
 * The products added in place: wire s of a window holds the running coefficient s, and the
 * factors of (1 + x^h) and x^h that Karatsuba's recursion puts on its three half products are
 * applied to the window (a CX ladder each way, and a shift of the window for x^h) instead of
 * being gathered per product. At the top, where a(x) b(x) has 2n - 1 coefficients for n output
 * wires, each half product is brought into a window by a linear map T of the output wires with
 * T R F = the window (R the reduction, F its factor), when R F has full column rank; false
 * (nothing written) when it has not.
 */
function productsInPlace(product: PolynomialProduct, reached: number[], emit: Emit, schoolbook: number): boolean {
  const len = product.a.length;
  const width = reached.length;
  const words = Math.max(1, Math.ceil(width / 32));
  const h = Math.ceil(len / 2);
  const at = new Map(reached.map((w, i) => [w, i]));
  // Column s of R: the output wires coefficient s of a(x) b(x) is added to.
  const column = product.reduction.map((ws) => {
    const v = new Uint32Array(words);
    for (const w of ws) flip(v, at.get(w)!);
    return v;
  });
  const columnOf = (coefficients: number[]): Vec => {
    const v = new Uint32Array(words);
    for (const s of coefficients) xorInto(v, column[s]!);
    return v;
  };
  const halves = [
    { a: product.a.slice(0, h), b: product.b.slice(0, h), place: (s: number) => [s, s + h] },
    { a: product.a.slice(h), b: product.b.slice(h), place: (s: number) => [s + h, s + 2 * h] },
    { a: product.a.slice(0, h), b: product.b.slice(0, h), place: (s: number) => [s + h], middle: true },
  ];
  const frames: Vec[][] = [];
  for (const half of halves) {
    const size = 2 * half.a.length - 1;
    const frame = windowFrame(Array.from({ length: size }, (_, s) => columnOf(half.place(s))), width, words);
    if (!frame) return false;
    frames.push(frame);
  }
  const identity = Array.from({ length: width }, (_, i) => unit(words, i));
  const move = (from: Vec[], to: Vec[]): void => {
    for (const [c, t] of linearSynth(from, to, width, words)) emit.cx(reached[c]!, reached[t]!);
  };
  let current = identity;
  halves.forEach((half, k) => {
    move(current, frames[k]!);
    current = frames[k]!;
    const sums: Array<[number, number]> = [];
    if (half.middle) {
      for (let i = 0; i < len - h; i++) sums.push([product.a[h + i]!, product.a[i]!], [product.b[h + i]!, product.b[i]!]);
    }
    for (const [from, to] of sums) emit.sum(from, to);
    windowProducts(half.a, half.b, reached.slice(0, 2 * half.a.length - 1), emit, schoolbook);
    for (const [from, to] of sums) emit.sum(from, to);
  });
  move(current, identity);
  return true;
}

/**
 * A linear map T of the output wires (as its rows: what each wire holds) that sends the given
 * columns to the first unit vectors, i.e. T^-1 = [columns | completion]; null when the columns
 * are dependent.
 */
function windowFrame(columns: Vec[], width: number, words: number): Vec[] | null {
  const basis = columns.slice();
  for (let i = 0; i < width && basis.length < width; i++) {
    const candidate = [...basis, unit(words, i)];
    if (rankOf(candidate, width) === candidate.length) basis.push(candidate.at(-1)!);
  }
  if (rankOf(basis, width) !== width) return null;
  // Rows of T^-1: entry (r, c) = bit r of basis column c.
  const rows = Array.from({ length: width }, (_, r) => {
    const v = new Uint32Array(words);
    basis.forEach((col, c) => get(col, r) && flip(v, c));
    return v;
  });
  return invert(rows, width, words);
}

function rankOf(vectors: Vec[], width: number): number {
  const rows = vectors.map((v) => v.slice());
  let rank = 0;
  for (let c = 0; c < width && rank < rows.length; c++) {
    const p = rows.findIndex((r, i) => i >= rank && get(r, c));
    if (p < 0) continue;
    [rows[rank], rows[p]] = [rows[p]!, rows[rank]!];
    for (let i = 0; i < rows.length; i++) if (i !== rank && get(rows[i]!, c)) xorInto(rows[i]!, rows[rank]!);
    rank++;
  }
  return rank;
}

/**
 * Adds a(x) b(x) to the window (wire s += coefficient s; 2 len - 1 wires), by Karatsuba's
 * recursion: lo (1 + x^h) on the window, hi x^h (1 + x^h) on the window from h, mid x^h on the
 * window from h, each factor (1 + x^h) applied as its inverse before the half product and
 * itself after (both a CX ladder of stride h; the window is long enough that nothing wraps).
 */
function windowProducts(a: number[], b: number[], window: number[], emit: Emit, schoolbook: number): void {
  const len = a.length;
  if (len <= schoolbook) {
    for (let i = 0; i < len; i++) for (let j = 0; j < len; j++) emit.leaf(a[i]!, b[j]!, window[i + j]!);
    return;
  }
  const h = Math.ceil(len / 2);
  // w <- (1 + x^h)^-1 w = sum_j x^jh w: ascending, each wire takes the one h below, already summed.
  const divide = (w: number[]): void => {
    for (let s = h; s < w.length; s++) emit.cx(w[s - h]!, w[s]!);
  };
  const multiply = (w: number[]): void => {
    for (let s = w.length - 1; s >= h; s--) emit.cx(w[s - h]!, w[s]!);
  };
  divide(window);
  windowProducts(a.slice(0, h), b.slice(0, h), window.slice(0, 2 * h - 1), emit, schoolbook);
  multiply(window);
  const upper = window.slice(h);
  divide(upper);
  windowProducts(a.slice(h), b.slice(h), upper.slice(0, 2 * (len - h) - 1), emit, schoolbook);
  multiply(upper);
  const sums: Array<[number, number]> = [];
  for (let i = 0; i < len - h; i++) sums.push([a[h + i]!, a[i]!], [b[h + i]!, b[i]!]);
  for (const [from, to] of sums) emit.sum(from, to);
  windowProducts(a.slice(0, h), b.slice(0, h), window.slice(h, 3 * h - 1), emit, schoolbook);
  for (const [from, to] of sums) emit.sum(from, to);
}
