/**
 * Complex numbers interned with a tolerance: two values closer than `tol` in both parts get
 * one id, so decision-diagram nodes whose weights differ only by rounding are shared.
 */

/** Id of 0 and of 1; every table holds them first. */
export const ZERO = 0;
export const ONE = 1;

/** Thrown when a table or a diagram outgrows its budget; the checker turns it into 'inconclusive'. */
export class BudgetExceeded extends Error {}

const MAX_ENTRIES = 1 << 26;

/** The smallest power of two >= max(x, 2^13): hash tables index with a mask. */
export const pow2 = (x: number): number => 2 ** Math.max(13, Math.ceil(Math.log2(x)));

function mix(bx: number, by: number): number {
  // The cell indices can pass 2^31, so both 32-bit halves take part in the hash.
  let h = Math.imul((bx | 0) ^ Math.imul((bx / 4294967296) | 0, 0x9e3779b1), 0x85ebca6b);
  h ^= Math.imul((by | 0) ^ Math.imul((by / 4294967296) | 0, 0x7feb352d), 0xc2b2ae35);
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) ^ (h >>> 13);
}

export class ComplexTable {
  re = new Float64Array(1 << 12);
  im = new Float64Array(1 << 12);
  /** Magnitude of each entry, kept because normalisation compares them constantly. */
  abs = new Float64Array(1 << 12);
  size = 0;
  private heads = new Int32Array(1 << 13).fill(-1);
  private next = new Int32Array(1 << 12);
  /** Cells are 2 tol wide, so a value within tol of x lies in x's cell or the nearer neighbour. */
  private readonly cellWidth: number;

  constructor(readonly tol = 1e-12) {
    this.cellWidth = 2 * tol;
    this.reset();
  }

  reset(): void {
    this.size = 0;
    this.heads.fill(-1);
    this.insert(0, 0);
    this.insert(1, 0);
  }

  /** The id of (re, im), snapping parts smaller than tol to 0. */
  lookup(re: number, im: number): number {
    const tol = this.tol;
    if (re < tol && re > -tol) re = 0;
    if (im < tol && im > -tol) im = 0;
    if (re === 0 && im === 0) return ZERO;
    const w = this.cellWidth;
    const bx = Math.floor(re / w);
    const by = Math.floor(im / w);
    const bx2 = re - bx * w < tol ? bx - 1 : bx + 1;
    const by2 = im - by * w < tol ? by - 1 : by + 1;
    const found = this.find(bx, by, re, im) ?? this.find(bx2, by, re, im) ?? this.find(bx, by2, re, im) ?? this.find(bx2, by2, re, im);
    return found ?? this.insert(re, im);
  }

  private find(bx: number, by: number, re: number, im: number): number | undefined {
    const tol = this.tol;
    for (let i = this.heads[mix(bx, by) & (this.heads.length - 1)]; i >= 0; i = this.next[i]) {
      const dr = this.re[i] - re;
      const di = this.im[i] - im;
      if (dr <= tol && dr >= -tol && di <= tol && di >= -tol) return i;
    }
    return undefined;
  }

  private insert(re: number, im: number): number {
    const id = this.size++;
    if (id >= MAX_ENTRIES) throw new BudgetExceeded('too many distinct complex weights');
    if (id >= this.re.length) this.grow();
    this.re[id] = re;
    this.im[id] = im;
    this.abs[id] = Math.hypot(re, im);
    if (this.size * 2 > this.heads.length) this.rehash();
    else this.link(id);
    return id;
  }

  private link(id: number): void {
    const h = mix(Math.floor(this.re[id] / this.cellWidth), Math.floor(this.im[id] / this.cellWidth)) & (this.heads.length - 1);
    this.next[id] = this.heads[h];
    this.heads[h] = id;
  }

  private grow(): void {
    const cap = this.re.length * 2;
    const re = new Float64Array(cap);
    const im = new Float64Array(cap);
    const abs = new Float64Array(cap);
    const next = new Int32Array(cap);
    re.set(this.re);
    im.set(this.im);
    abs.set(this.abs);
    this.abs = abs;
    next.set(this.next);
    this.re = re;
    this.im = im;
    this.next = next;
  }

  private rehash(): void {
    this.heads = new Int32Array(pow2(4 * this.size)).fill(-1);
    for (let i = 0; i < this.size; i++) this.link(i);
  }

  /** Keeps the marked ids (0 and 1 always) and returns old id -> new id (-1 for dropped ones). */
  compact(keep: Uint8Array): Int32Array {
    const remap = new Int32Array(this.size).fill(-1);
    let k = 0;
    for (let i = 0; i < this.size; i++) {
      if (i > ONE && !keep[i]) continue;
      this.re[k] = this.re[i];
      this.im[k] = this.im[i];
      this.abs[k] = this.abs[i];
      remap[i] = k++;
    }
    this.size = k;
    this.heads = new Int32Array(pow2(4 * k)).fill(-1);
    for (let i = 0; i < k; i++) this.link(i);
    return remap;
  }

  mul(a: number, b: number): number {
    if (a === ZERO || b === ZERO) return ZERO;
    if (a === ONE) return b;
    if (b === ONE) return a;
    const ar = this.re[a], ai = this.im[a], br = this.re[b], bi = this.im[b];
    return this.lookup(ar * br - ai * bi, ar * bi + ai * br);
  }

  div(a: number, b: number): number {
    if (a === b) return ONE;
    if (b === ONE || a === ZERO) return a;
    const ar = this.re[a], ai = this.im[a], br = this.re[b], bi = this.im[b];
    const d = br * br + bi * bi;
    return this.lookup((ar * br + ai * bi) / d, (ai * br - ar * bi) / d);
  }

  add(a: number, b: number): number {
    if (a === ZERO) return b;
    if (b === ZERO) return a;
    return this.lookup(this.re[a] + this.re[b], this.im[a] + this.im[b]);
  }

  mag(a: number): number {
    return this.abs[a];
  }
}
