/**
 * Matrix product state: one tensor per site (left bond, physical bit, right bond), gates on
 * neighbouring sites by contraction and truncated SVD. Qubits move between sites by swaps,
 * tracked in a permutation instead of being swapped back.
 */
import { svd } from './svd.ts';

const SWAP = Float64Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0);

export class Mps {
  /** sites[s]: Dl x 2 x Dr, index ((l * 2 + b) * Dr + r), interleaved complex. */
  readonly sites: Float64Array[] = [];
  /** bond[s] is the bond dimension left of site s (bond[0] = bond[n] = 1). */
  readonly bond: number[];
  /** site of each qubit, and qubit at each site. */
  readonly siteOf: number[];
  readonly qubitAt: number[];
  truncationError = 0;
  maxBondReached = 1;

  constructor(readonly n: number, readonly maxBond: number) {
    this.bond = new Array<number>(n + 1).fill(1);
    for (let s = 0; s < n; s++) this.sites.push(Float64Array.of(1, 0, 0, 0));
    this.siteOf = Array.from({ length: n }, (_, i) => i);
    this.qubitAt = Array.from({ length: n }, (_, i) => i);
  }

  /** Apply a k-qubit matrix (qubits[0] least significant) on logical qubits. */
  apply(qubits: number[], m: Float64Array): void {
    if (qubits.length === 1) return this.apply1(this.siteOf[qubits[0]!]!, m);
    // Gather the qubits onto consecutive sites starting at the leftmost one.
    const order = [...qubits].sort((a, b) => this.siteOf[a]! - this.siteOf[b]!);
    const first = this.siteOf[order[0]!]!;
    for (let j = 1; j < order.length; j++) {
      const want = first + j;
      while (this.siteOf[order[j]!]! > want) this.swapSites(this.siteOf[order[j]!]! - 1);
    }
    // Matrix bit i (qubits[i]) sits at site position siteOf[qubits[i]] - first.
    const posOf = qubits.map((q) => this.siteOf[q]! - first);
    this.applyBlock(first, qubits.length, m, posOf);
  }

  private apply1(s: number, m: Float64Array): void {
    const A = this.sites[s]!;
    const dl = this.bond[s]!;
    const dr = this.bond[s + 1]!;
    for (let l = 0; l < dl; l++) {
      for (let r = 0; r < dr; r++) {
        const i0 = 2 * ((l * 2) * dr + r);
        const i1 = 2 * ((l * 2 + 1) * dr + r);
        const xr = A[i0]!, xi = A[i0 + 1]!, yr = A[i1]!, yi = A[i1 + 1]!;
        A[i0] = m[0]! * xr - m[1]! * xi + m[2]! * yr - m[3]! * yi;
        A[i0 + 1] = m[0]! * xi + m[1]! * xr + m[2]! * yi + m[3]! * yr;
        A[i1] = m[4]! * xr - m[5]! * xi + m[6]! * yr - m[7]! * yi;
        A[i1 + 1] = m[4]! * xi + m[5]! * xr + m[6]! * yi + m[7]! * yr;
      }
    }
  }

  private swapSites(s: number): void {
    this.applyBlock(s, 2, SWAP, [0, 1]);
    const a = this.qubitAt[s]!;
    const b = this.qubitAt[s + 1]!;
    this.qubitAt[s] = b;
    this.qubitAt[s + 1] = a;
    this.siteOf[a] = s + 1;
    this.siteOf[b] = s;
  }

  /** Contract sites [s, s+k), apply m (its bit i at block position posOf[i]), split back by SVD. */
  private applyBlock(s: number, k: number, m: Float64Array, posOf: number[]): void {
    const dl = this.bond[s]!;
    const P = 1 << k;
    // theta[l][p][r] with block position j at bit j of p.
    let theta = this.sites[s]!;
    let width = 2;
    for (let j = 1; j < k; j++) {
      const B = this.sites[s + j]!;
      const mid = this.bond[s + j]!;
      const dr = this.bond[s + j + 1]!;
      const out = new Float64Array(2 * dl * width * 2 * dr);
      for (let l = 0; l < dl; l++)
        for (let p = 0; p < width; p++)
          for (let x = 0; x < mid; x++) {
            const ar = theta[2 * ((l * width + p) * mid + x)]!, ai = theta[2 * ((l * width + p) * mid + x) + 1]!;
            if (ar === 0 && ai === 0) continue;
            for (let b = 0; b < 2; b++)
              for (let r = 0; r < dr; r++) {
                const br = B[2 * ((x * 2 + b) * dr + r)]!, bi = B[2 * ((x * 2 + b) * dr + r) + 1]!;
                const o = 2 * ((l * width * 2 + (p | (b << j))) * dr + r);
                out[o] += ar * br - ai * bi;
                out[o + 1] += ar * bi + ai * br;
              }
          }
      theta = out;
      width *= 2;
    }
    const dr = this.bond[s + k]!;
    // Map block index p to matrix index: matrix bit i is block bit posOf[i].
    const toM = new Int32Array(P);
    for (let p = 0; p < P; p++) {
      let mi = 0;
      for (let i = 0; i < k; i++) if ((p >> posOf[i]!) & 1) mi |= 1 << i;
      toM[p] = mi;
    }
    const g = new Float64Array(theta.length);
    for (let l = 0; l < dl; l++)
      for (let r = 0; r < dr; r++)
        for (let p = 0; p < P; p++) {
          let re = 0;
          let im = 0;
          const row = toM[p]!;
          for (let q = 0; q < P; q++) {
            const mr = m[2 * (row * P + toM[q]!)]!, mi = m[2 * (row * P + toM[q]!) + 1]!;
            if (mr === 0 && mi === 0) continue;
            const tr = theta[2 * ((l * P + q) * dr + r)]!, ti = theta[2 * ((l * P + q) * dr + r) + 1]!;
            re += mr * tr - mi * ti;
            im += mr * ti + mi * tr;
          }
          g[2 * ((l * P + p) * dr + r)] = re;
          g[2 * ((l * P + p) * dr + r) + 1] = im;
        }
    // Split off the leftmost site k-1 times.
    let rest = g;
    let left = dl;
    let restP = P;
    for (let j = 0; j < k - 1; j++) {
      const rows = left * 2;
      const cols = (restP / 2) * dr;
      // rows (l, b0) ; cols (p >> 1, r)
      const mat = new Float64Array(2 * rows * cols);
      for (let l = 0; l < left; l++)
        for (let p = 0; p < restP; p++)
          for (let r = 0; r < dr; r++) {
            const src = 2 * ((l * restP + p) * dr + r);
            const dst = 2 * ((l * 2 + (p & 1)) * cols + (p >> 1) * dr + r);
            mat[dst] = rest[src]!;
            mat[dst + 1] = rest[src + 1]!;
          }
      const { u, s: sv, v } = this.svdT(mat, rows, cols);
      const keep = this.truncate(sv);
      const order = keep.order;
      const chi = order.length;
      const A = new Float64Array(2 * rows * chi);
      const U = u.cols;
      for (let i = 0; i < rows; i++)
        for (let c = 0; c < chi; c++) {
          A[2 * (i * chi + c)] = u.data[2 * (i * U + order[c]!)]!;
          A[2 * (i * chi + c) + 1] = u.data[2 * (i * U + order[c]!) + 1]!;
        }
      this.sites[s + j] = A;
      this.bond[s + j + 1] = chi;
      this.maxBondReached = Math.max(this.maxBondReached, chi);
      // rest = Σ V† (chi x cols), renormalised after truncation.
      const nextP = restP / 2;
      const R = new Float64Array(2 * chi * cols);
      for (let c = 0; c < chi; c++) {
        const sc = sv[order[c]!]! * keep.scale;
        for (let x = 0; x < cols; x++) {
          // V† [c][x] = conj(V[x][c])
          R[2 * (c * cols + x)] = sc * v.data[2 * (x * v.cols + order[c]!)]!;
          R[2 * (c * cols + x) + 1] = -sc * v.data[2 * (x * v.cols + order[c]!) + 1]!;
        }
      }
      rest = R;
      left = chi;
      restP = nextP;
    }
    this.sites[s + k - 1] = rest;
  }

  /** SVD of a rows x cols matrix, run on the smaller side (Jacobi cost grows with columns squared). */
  private svdT(mat: Float64Array, rows: number, cols: number) {
    if (cols <= rows) {
      const r = svd(mat, rows, cols);
      return { u: { data: r.u, cols }, s: r.s, v: { data: r.v, cols } };
    }
    // A = U Σ V†  <=>  A† = V Σ U†
    const at = new Float64Array(2 * rows * cols);
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++) {
        at[2 * (j * rows + i)] = mat[2 * (i * cols + j)]!;
        at[2 * (j * rows + i) + 1] = -mat[2 * (i * cols + j) + 1]!;
      }
    const r = svd(at, cols, rows);
    return { u: { data: r.v, cols: rows }, s: r.s, v: { data: r.u, cols: rows } };
  }

  private truncate(s: Float64Array): { order: number[]; scale: number } {
    const idx = Array.from(s.keys()).sort((a, b) => s[b]! - s[a]!);
    const total = idx.reduce((acc, i) => acc + s[i]! ** 2, 0);
    const smax = s[idx[0]!] ?? 0;
    const order = idx.filter((i, rank) => rank < this.maxBond && s[i]! > 1e-13 * smax);
    if (order.length === 0) order.push(idx[0]!);
    const kept = order.reduce((acc, i) => acc + s[i]! ** 2, 0);
    if (total > 0) this.truncationError += Math.max(0, (total - kept) / total);
    return { order, scale: kept > 0 ? Math.sqrt(total / kept) : 1 };
  }
}
