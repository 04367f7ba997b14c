/**
 * Matrix decision diagrams (QMDD): a node on qubit v splits a 2^(v+1) square matrix into its
 * four quadrants (row bit, column bit of qubit v), each an edge = (child node, complex
 * weight). Nodes are unique (hash-consed) and normalised, so equal sub-matrices, up to a
 * scalar, are one node and the identity is one node per level.
 *
 * An edge is packed into one number: node * 2^26 + weight id. Node 0 is the terminal (the
 * 1x1 matrix [1]); the zero edge is the number 0 (terminal, weight 0). Every path visits
 * every level (no level skipping), except zero edges, which stop at the terminal.
 */
import * as table from './complex-table.ts';
import { BudgetExceeded, ComplexTable, pow2 } from './complex-table.ts';

// Local copies: the loader used by tests and benchmarks compiles modules to CommonJS, where
// each use of an imported binding is a getter call, too slow on the hottest paths.
const { ONE, ZERO } = table;

export const W = 67108864;
export const pack = (node: number, w: number): number => node * W + w;
export const nodeOf = (e: number): number => Math.floor(e / W);
export const weightOf = (e: number): number => e % W;

function hash9(v: number, n: Int32Array, w: Int32Array, o: number): number {
  let h = Math.imul(v + 1, 0x9e3779b1);
  for (let i = 0; i < 4; i++) {
    h = Math.imul(h ^ n[o + i], 0x85ebca6b) ^ (h >>> 13);
    h = Math.imul(h ^ w[o + i], 0xc2b2ae35) ^ (h >>> 16);
  }
  return h;
}

export class Dd {
  readonly ct: ComplexTable;
  /** Qubit of each node (-1 for the terminal). */
  level = new Int32Array(1 << 12);
  /** Children of node i at 4i..4i+3, quadrant index 2 * row bit + column bit. */
  kid = new Int32Array(4 << 12);
  wt = new Int32Array(4 << 12);
  count = 1;
  /** The identity node of each level. */
  ident: Int32Array;
  private table = new Int32Array(1 << 13);
  private readonly scratchN = new Int32Array(4);
  private readonly scratchW = new Int32Array(4);

  /** `hardCap` bounds the nodes alive between collections: past it a build throws BudgetExceeded. */
  constructor(readonly n: number, tol = 1e-12, readonly hardCap = 6e6) {
    this.ct = new ComplexTable(tol);
    this.level[0] = -1;
    this.ident = new Int32Array(n);
    this.buildIdentity();
  }

  private buildIdentity(): void {
    let e = ONE;
    for (let v = 0; v < this.n; v++) {
      e = this.makeNode(v, e, ZERO, ZERO, e);
      this.ident[v] = nodeOf(e);
    }
  }

  /** The identity edge of the top `v + 1` levels (weight 1). */
  identity(v = this.n - 1): number {
    return v < 0 ? ONE : pack(this.ident[v], ONE);
  }

  /** The normalised edge for the matrix [[e0, e1], [e2, e3]] on qubit v. */
  makeNode(v: number, e0: number, e1: number, e2: number, e3: number): number {
    const ns = this.scratchN;
    const ws = this.scratchW;
    ws[0] = e0 % W;
    ws[1] = e1 % W;
    ws[2] = e2 % W;
    ws[3] = e3 % W;
    ns[0] = ws[0] === ZERO ? 0 : Math.floor(e0 / W);
    ns[1] = ws[1] === ZERO ? 0 : Math.floor(e1 / W);
    ns[2] = ws[2] === ZERO ? 0 : Math.floor(e2 / W);
    ns[3] = ws[3] === ZERO ? 0 : Math.floor(e3 / W);
    const ct = this.ct;
    const abs = ct.abs;
    let best = -1;
    let bestMag = 0;
    for (let i = 0; i < 4; i++) {
      const w = ws[i];
      // Ties (up to the tolerance) go to the first quadrant, so rounding cannot flip the choice.
      if (w !== ZERO && abs[w] > bestMag + ct.tol) {
        best = i;
        bestMag = abs[w];
      }
    }
    if (best < 0) return ZERO;
    const top = ws[best];
    for (let i = 0; i < 4; i++) ws[i] = i === best ? ONE : ct.div(ws[i], top);
    return this.unique(v, ns, ws) * W + top;
  }

  private unique(v: number, ns: Int32Array, ws: Int32Array): number {
    const mask = this.table.length - 1;
    for (let h = hash9(v, ns, ws, 0) & mask; ; h = (h + 1) & mask) {
      const id = this.table[h];
      if (id === 0) break;
      const o = 4 * id;
      const k = this.kid;
      const w = this.wt;
      if (this.level[id] === v && k[o] === ns[0] && k[o + 1] === ns[1] && k[o + 2] === ns[2] && k[o + 3] === ns[3] &&
        w[o] === ws[0] && w[o + 1] === ws[1] && w[o + 2] === ws[2] && w[o + 3] === ws[3]) return id;
    }
    if (this.count >= this.hardCap) throw new BudgetExceeded(`more than ${this.hardCap} decision-diagram nodes`);
    const id = this.count++;
    if (id >= this.level.length) this.grow();
    this.level[id] = v;
    this.kid.set(ns, 4 * id);
    this.wt.set(ws, 4 * id);
    if (this.count * 2 > this.table.length) this.rehash();
    else this.link(id);
    return id;
  }

  private link(id: number): void {
    const mask = this.table.length - 1;
    let h = hash9(this.level[id], this.kid, this.wt, 4 * id) & mask;
    while (this.table[h] !== 0) h = (h + 1) & mask;
    this.table[h] = id;
  }

  private rehash(): void {
    this.table = new Int32Array(pow2(4 * this.count));
    for (let i = 1; i < this.count; i++) this.link(i);
  }

  private grow(): void {
    const cap = this.level.length * 2;
    const level = new Int32Array(cap);
    const kid = new Int32Array(4 * cap);
    const wt = new Int32Array(4 * cap);
    level.set(this.level);
    kid.set(this.kid);
    wt.set(this.wt);
    this.level = level;
    this.kid = kid;
    this.wt = wt;
  }

  /** Child edge q (quadrant 2 * row + col) of a node. */
  child(node: number, q: number): number {
    const w = this.wt[4 * node + q];
    return w === ZERO ? ZERO : pack(this.kid[4 * node + q], w);
  }

  /** Number of nodes reachable from the edge (the terminal included). */
  size(e: number): number {
    const seen = new Set<number>();
    const stack = [nodeOf(e)];
    while (stack.length) {
      const id = stack.pop() as number;
      if (seen.has(id)) continue;
      seen.add(id);
      if (id !== 0) for (let q = 0; q < 4; q++) if (this.wt[4 * id + q] !== ZERO) stack.push(this.kid[4 * id + q]);
    }
    return seen.size;
  }

  /**
   * Drops every node and weight not reachable from `roots` (or the identity), renumbering the
   * rest; returns the roots renumbered. Any cache of node or weight ids is stale afterwards.
   */
  collect(roots: number[]): number[] {
    const keepN = new Uint8Array(this.count);
    const keepW = new Uint8Array(this.ct.size);
    const stack = [...roots.map(nodeOf), ...this.ident];
    for (const r of roots) keepW[weightOf(r)] = 1;
    keepN[0] = 1;
    while (stack.length) {
      const id = stack.pop() as number;
      if (keepN[id]) continue;
      keepN[id] = 1;
      for (let q = 0; q < 4; q++) {
        const w = this.wt[4 * id + q];
        keepW[w] = 1;
        if (w !== ZERO) stack.push(this.kid[4 * id + q]);
      }
    }
    const wmap = this.ct.compact(keepW);
    // Children are always created before their parents, so renumbering in order keeps kids below.
    const nmap = new Int32Array(this.count);
    let k = 1;
    for (let id = 1; id < this.count; id++) {
      if (!keepN[id]) continue;
      nmap[id] = k;
      this.level[k] = this.level[id];
      for (let q = 0; q < 4; q++) {
        this.kid[4 * k + q] = nmap[this.kid[4 * id + q]];
        this.wt[4 * k + q] = wmap[this.wt[4 * id + q]];
      }
      k++;
    }
    this.count = k;
    for (let v = 0; v < this.n; v++) this.ident[v] = nmap[this.ident[v]];
    this.table = new Int32Array(pow2(4 * k));
    for (let i = 1; i < k; i++) this.link(i);
    return roots.map((r) => pack(nmap[nodeOf(r)], wmap[weightOf(r)]));
  }
}
