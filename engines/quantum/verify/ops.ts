/**
 * Multiplication and addition of decision diagrams, with lossy compute tables (a miss only
 * costs time). Both operands of an operation always sit on the same level.
 */
import * as table from './complex-table.ts';
import * as diagram from './dd.ts';
import type { Dd } from './dd.ts';

// Local copies: under the CommonJS-compiling loader each imported binding is a getter call.
const { ONE, ZERO } = table;
const { W } = diagram;
const nodeOf = (e: number): number => Math.floor(e / W);
const weightOf = (e: number): number => e % W;
const pack = (node: number, w: number): number => node * W + w;

const BITS = 18;

function h2(a: number, b: number): number {
  const h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca6b);
  return (h ^ (h >>> 15)) & ((1 << BITS) - 1);
}

export class Ops {
  private mulA = new Int32Array(1 << BITS).fill(-1);
  private mulB = new Int32Array(1 << BITS);
  private mulR = new Float64Array(1 << BITS);
  private addA = new Int32Array(1 << BITS).fill(-1);
  private addB = new Int32Array(1 << BITS);
  private addW = new Int32Array(1 << BITS);
  private addR = new Float64Array(1 << BITS);

  /** Quadrant results per level: a product at level v only recurses into lower levels. */
  private readonly quad: Float64Array;

  constructor(readonly dd: Dd) {
    this.quad = new Float64Array(4 * dd.n);
  }

  /** Forgets every cached result (after the diagram package renumbers its nodes). */
  clear(): void {
    this.mulA.fill(-1);
    this.addA.fill(-1);
  }

  /** The edge scaled by a weight id. */
  scale(e: number, w: number): number {
    const ew = weightOf(e);
    if (ew === ZERO || w === ZERO) return ZERO;
    const p = this.dd.ct.mul(ew, w);
    return p === ZERO ? ZERO : pack(nodeOf(e), p);
  }

  /** The matrix product x * y. */
  mul(x: number, y: number): number {
    const wx = weightOf(x);
    const wy = weightOf(y);
    if (wx === ZERO || wy === ZERO) return ZERO;
    return this.scale(this.mulNodes(nodeOf(x), nodeOf(y)), this.dd.ct.mul(wx, wy));
  }

  private mulNodes(a: number, b: number): number {
    if (a === 0) return ONE;
    const dd = this.dd;
    const v = dd.level[a];
    if (a === dd.ident[v]) return pack(b, ONE);
    if (b === dd.ident[v]) return pack(a, ONE);
    const slot = h2(a, b);
    if (this.mulA[slot] === a && this.mulB[slot] === b) return this.mulR[slot];
    const kid = dd.kid;
    const wt = dd.wt;
    const oa = 4 * a;
    const ob = 4 * b;
    const r = this.quad;
    for (let i = 0; i < 2; i++) {
      for (let j = 0; j < 2; j++) {
        let acc = ZERO;
        for (let k = 0; k < 2; k++) {
          const wa = wt[oa + 2 * i + k];
          if (wa === ZERO) continue;
          const wb = wt[ob + 2 * k + j];
          if (wb === ZERO) continue;
          const t = this.mul(kid[oa + 2 * i + k] * W + wa, kid[ob + 2 * k + j] * W + wb);
          acc = acc === ZERO ? t : this.add(acc, t);
        }
        r[4 * v + 2 * i + j] = acc;
      }
    }
    const o = 4 * v;
    const out = dd.makeNode(v, r[o], r[o + 1], r[o + 2], r[o + 3]);
    this.mulA[slot] = a;
    this.mulB[slot] = b;
    this.mulR[slot] = out;
    return out;
  }

  /** The matrix sum x + y. */
  add(x: number, y: number): number {
    const wx = weightOf(x);
    if (wx === ZERO) return y;
    const wy = weightOf(y);
    if (wy === ZERO) return x;
    const ct = this.dd.ct;
    let nx = nodeOf(x);
    let ny = nodeOf(y);
    if (nx === ny) {
      const w = ct.add(wx, wy);
      return w === ZERO ? ZERO : pack(nx, w);
    }
    // x + y = wx * (X + (wy / wx) Y): one cache entry serves every common factor.
    let f = wx;
    let ratio = ct.div(wy, wx);
    if (nx > ny) {
      [nx, ny] = [ny, nx];
      f = wy;
      ratio = ct.div(wx, wy);
    }
    const slot = h2(nx, ny ^ Math.imul(ratio, 0x27d4eb2d));
    let out: number;
    if (this.addA[slot] === nx && this.addB[slot] === ny && this.addW[slot] === ratio) out = this.addR[slot];
    else {
      const dd = this.dd;
      const r = [ZERO, ZERO, ZERO, ZERO];
      for (let q = 0; q < 4; q++) r[q] = this.add(dd.child(nx, q), this.scale(dd.child(ny, q), ratio));
      out = dd.makeNode(dd.level[nx], r[0], r[1], r[2], r[3]);
      this.addA[slot] = nx;
      this.addB[slot] = ny;
      this.addW[slot] = ratio;
      this.addR[slot] = out;
    }
    return this.scale(out, f);
  }

  /** The largest magnitude of any entry of the matrix. */
  maxAbs(e: number): number {
    const dd = this.dd;
    const memo = new Map<number, number>();
    const node = (id: number): number => {
      if (id === 0) return 1;
      const m = memo.get(id);
      if (m !== undefined) return m;
      let best = 0;
      for (let q = 0; q < 4; q++) {
        const c = dd.child(id, q);
        if (c !== ZERO) best = Math.max(best, dd.ct.mag(weightOf(c)) * node(nodeOf(c)));
      }
      memo.set(id, best);
      return best;
    };
    return weightOf(e) === ZERO ? 0 : dd.ct.mag(weightOf(e)) * node(nodeOf(e));
  }
}
