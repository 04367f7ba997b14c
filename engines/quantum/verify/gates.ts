/**
 * Decision diagrams of gates: a 1- or 2-qubit matrix on target qubits with positive controls,
 * the identity everywhere else. Built top-down in one pass: once a control reads 0 the rest
 * is the identity, and below the lowest involved qubit every block is a multiple of it.
 */
import type { Mat } from '../optimizer/complex.ts';
import * as table from './complex-table.ts';
import type { Dd } from './dd.ts';
import { W } from './dd.ts';

// A local copy: under the CommonJS-compiling loader each imported binding is a getter call.
const { ZERO } = table;

export interface Gate {
  /** Target qubits, targets[0] the least significant bit of the matrix index. */
  targets: number[];
  controls: number[];
  /** Row-major, interleaved re/im, 2^k x 2^k for k targets. */
  m: Mat;
}

export class GateBuilder {
  private cache = new Map<string, number>();

  constructor(readonly dd: Dd) {}

  /** Forgets built gates (after the diagram package renumbers its nodes). */
  clear(): void {
    this.cache.clear();
  }

  /** The edge of the gate, or of its adjoint. */
  build(g: Gate, adjoint: boolean): number {
    const dd = this.dd;
    const ct = dd.ct;
    const dim = 1 << g.targets.length;
    const ids = new Int32Array(dim * dim);
    for (let r = 0; r < dim; r++) {
      for (let c = 0; c < dim; c++) {
        const k = 2 * (adjoint ? c * dim + r : r * dim + c);
        ids[r * dim + c] = ct.lookup(g.m[k], adjoint ? -g.m[k + 1] : g.m[k + 1]);
      }
    }
    const key = `${g.targets.join(',')}|${g.controls.join(',')}|${ids.join(',')}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const role = new Int8Array(dd.n).fill(-1);
    g.controls.forEach((q) => (role[q] = 100));
    g.targets.forEach((q, j) => (role[q] = j));
    const low = Math.min(...g.targets, ...g.controls);
    const memo = new Map<number, number>();
    // rs, cs: row and column bits of the targets above level v; the memo key packs them.
    const rec = (v: number, rs: number, cs: number): number => {
      if (v < low) {
        const w = ids[rs * dim + cs];
        return w === ZERO ? ZERO : v < 0 ? w : dd.ident[v] * W + w;
      }
      const key = (v * dim + rs) * dim + cs;
      const m = memo.get(key);
      if (m !== undefined) return m;
      let out: number;
      const r = role[v];
      if (r === 100) {
        // Control 0: identity on the rest, so the targets above must match row and column.
        const off = rs === cs ? dd.identity(v - 1) : ZERO;
        out = dd.makeNode(v, off, ZERO, ZERO, rec(v - 1, rs, cs));
      } else if (r >= 0) {
        const b = 1 << r;
        out = dd.makeNode(v, rec(v - 1, rs, cs), rec(v - 1, rs, cs | b), rec(v - 1, rs | b, cs), rec(v - 1, rs | b, cs | b));
      } else {
        const e = rec(v - 1, rs, cs);
        out = dd.makeNode(v, e, ZERO, ZERO, e);
      }
      memo.set(key, out);
      return out;
    };
    const e = rec(dd.n - 1, 0, 0);
    this.cache.set(key, e);
    return e;
  }
}
