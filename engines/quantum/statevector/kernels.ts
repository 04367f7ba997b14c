/**
 * In-place statevector kernels over interleaved complex128 (re, im) amplitudes.
 *
 * Every kernel enumerates only the basis states it changes: `t` runs over [lo, hi) of the
 * indices with the gate's qubits and controls removed, and the index is rebuilt by inserting
 * zero bits at the sorted `pos` positions and OR-ing the controls `cmask`. Splitting [lo, hi)
 * lets worker threads share one pass.
 */

/** Sorted bit positions of a mask. */
export function positionsOf(mask: number): Int32Array {
  const out: number[] = [];
  for (let b = 0; b < 31; b++) if ((mask >>> b) & 1) out.push(b);
  return Int32Array.from(out);
}

/** Insert a zero bit at each sorted position (ascending) into t. */
function expand(t: number, pos: Int32Array): number {
  for (let j = 0; j < pos.length; j++) {
    const b = pos[j]!;
    t = ((t >>> b) << (b + 1)) | (t & ((1 << b) - 1));
  }
  return t;
}

/** Number of iterations of a kernel touching `k` positions on a state of `len` doubles. */
export function iterations(len: number, k: number): number {
  return len / 2 / 2 ** k;
}

/** One-qubit matrix m = [a, b; c, d] (8 numbers) on qubit q; pos = positions of q and controls. */
export function apply1(st: Float64Array, q: number, m: ArrayLike<number>, cmask: number, pos: Int32Array, lo: number, hi: number): void {
  const s = 1 << q;
  const ar = m[0]!, ai = m[1]!, br = m[2]!, bi = m[3]!, cr = m[4]!, ci = m[5]!, dr = m[6]!, di = m[7]!;
  if (pos.length === 1) {
    const low = s - 1;
    for (let t = lo; t < hi; t++) {
      const i = ((t >>> q) << (q + 1)) | (t & low);
      const i0 = 2 * i;
      const i1 = i0 + 2 * s;
      const xr = st[i0]!, xi = st[i0 + 1]!, yr = st[i1]!, yi = st[i1 + 1]!;
      st[i0] = ar * xr - ai * xi + br * yr - bi * yi;
      st[i0 + 1] = ar * xi + ai * xr + br * yi + bi * yr;
      st[i1] = cr * xr - ci * xi + dr * yr - di * yi;
      st[i1 + 1] = cr * xi + ci * xr + dr * yi + di * yr;
    }
    return;
  }
  for (let t = lo; t < hi; t++) {
    const i = expand(t, pos) | cmask;
    const i0 = 2 * i;
    const i1 = i0 + 2 * s;
    const xr = st[i0]!, xi = st[i0 + 1]!, yr = st[i1]!, yi = st[i1 + 1]!;
    st[i0] = ar * xr - ai * xi + br * yr - bi * yi;
    st[i0 + 1] = ar * xi + ai * xr + br * yi + bi * yr;
    st[i1] = cr * xr - ci * xi + dr * yr - di * yi;
    st[i1 + 1] = cr * xi + ci * xr + dr * yi + di * yr;
  }
}

/** Pauli X on qubit q with controls cmask: swaps amplitude pairs. */
export function applyX(st: Float64Array, q: number, cmask: number, pos: Int32Array, lo: number, hi: number): void {
  const s2 = 2 << q;
  for (let t = lo; t < hi; t++) {
    const i0 = 2 * (expand(t, pos) | cmask);
    const i1 = i0 + s2;
    const xr = st[i0]!, xi = st[i0 + 1]!;
    st[i0] = st[i1]!;
    st[i0 + 1] = st[i1 + 1]!;
    st[i1] = xr;
    st[i1 + 1] = xi;
  }
}

/** Multiply by (c + i s) every amplitude whose index has all bits of mask (pos = its positions). */
export function applyPhase(st: Float64Array, mask: number, c: number, s: number, pos: Int32Array, lo: number, hi: number): void {
  for (let t = lo; t < hi; t++) {
    const i = 2 * (expand(t, pos) | mask);
    const re = st[i]!, im = st[i + 1]!;
    st[i] = re * c - im * s;
    st[i + 1] = re * s + im * c;
  }
}

/** Diagonal one-qubit gate diag(d0, d1) on qubit q with controls cmask. */
export function applyDiag1(st: Float64Array, q: number, d: ArrayLike<number>, cmask: number, pos: Int32Array, lo: number, hi: number): void {
  const c0 = d[0]!, s0 = d[1]!, c1 = d[2]!, s1 = d[3]!;
  const s2 = 2 << q;
  for (let t = lo; t < hi; t++) {
    const i0 = 2 * (expand(t, pos) | cmask);
    const i1 = i0 + s2;
    const ar = st[i0]!, ai = st[i0 + 1]!, br = st[i1]!, bi = st[i1 + 1]!;
    st[i0] = ar * c0 - ai * s0;
    st[i0 + 1] = ar * s0 + ai * c0;
    st[i1] = br * c1 - bi * s1;
    st[i1 + 1] = br * s1 + bi * c1;
  }
}

/** Swap qubits a and b (with controls cmask); pos = positions of a, b and the controls. */
export function applySwap(st: Float64Array, a: number, b: number, cmask: number, pos: Int32Array, lo: number, hi: number): void {
  const ba = 1 << a;
  const bb = 1 << b;
  for (let t = lo; t < hi; t++) {
    const base = expand(t, pos) | cmask;
    const i = 2 * (base | ba);
    const j = 2 * (base | bb);
    const r = st[i]!, m = st[i + 1]!;
    st[i] = st[j]!;
    st[i + 1] = st[j + 1]!;
    st[j] = r;
    st[j + 1] = m;
  }
}

/** Two-qubit matrix (4x4, q0 the low matrix bit) on q0, q1 with controls cmask. */
export function apply2(st: Float64Array, q0: number, q1: number, m: ArrayLike<number>, cmask: number, pos: Int32Array, lo: number, hi: number): void {
  const o1 = 2 << q0;
  const o2 = 2 << q1;
  const o3 = o1 + o2;
  const u = m;
  const u0 = u[0]!, u1 = u[1]!, u2 = u[2]!, u3 = u[3]!, u4 = u[4]!, u5 = u[5]!, u6 = u[6]!, u7 = u[7]!;
  const u8 = u[8]!, u9 = u[9]!, u10 = u[10]!, u11 = u[11]!, u12 = u[12]!, u13 = u[13]!, u14 = u[14]!, u15 = u[15]!;
  const u16 = u[16]!, u17 = u[17]!, u18 = u[18]!, u19 = u[19]!, u20 = u[20]!, u21 = u[21]!, u22 = u[22]!, u23 = u[23]!;
  const u24 = u[24]!, u25 = u[25]!, u26 = u[26]!, u27 = u[27]!, u28 = u[28]!, u29 = u[29]!, u30 = u[30]!, u31 = u[31]!;
  const p0 = pos[0]!;
  const p1 = pos[1]!;
  const simple = pos.length === 2;
  for (let t = lo; t < hi; t++) {
    let i: number;
    if (simple) {
      i = ((t >>> p0) << (p0 + 1)) | (t & ((1 << p0) - 1));
      i = ((i >>> p1) << (p1 + 1)) | (i & ((1 << p1) - 1));
    } else i = expand(t, pos) | cmask;
    const j0 = 2 * i;
    const j1 = j0 + o1;
    const j2 = j0 + o2;
    const j3 = j0 + o3;
    const ar = st[j0]!, ai = st[j0 + 1]!, br = st[j1]!, bi = st[j1 + 1]!;
    const cr = st[j2]!, ci = st[j2 + 1]!, dr = st[j3]!, di = st[j3 + 1]!;
    st[j0] = u0 * ar - u1 * ai + u2 * br - u3 * bi + u4 * cr - u5 * ci + u6 * dr - u7 * di;
    st[j0 + 1] = u0 * ai + u1 * ar + u2 * bi + u3 * br + u4 * ci + u5 * cr + u6 * di + u7 * dr;
    st[j1] = u8 * ar - u9 * ai + u10 * br - u11 * bi + u12 * cr - u13 * ci + u14 * dr - u15 * di;
    st[j1 + 1] = u8 * ai + u9 * ar + u10 * bi + u11 * br + u12 * ci + u13 * cr + u14 * di + u15 * dr;
    st[j2] = u16 * ar - u17 * ai + u18 * br - u19 * bi + u20 * cr - u21 * ci + u22 * dr - u23 * di;
    st[j2 + 1] = u16 * ai + u17 * ar + u18 * bi + u19 * br + u20 * ci + u21 * cr + u22 * di + u23 * dr;
    st[j3] = u24 * ar - u25 * ai + u26 * br - u27 * bi + u28 * cr - u29 * ci + u30 * dr - u31 * di;
    st[j3 + 1] = u24 * ai + u25 * ar + u26 * bi + u27 * br + u28 * ci + u29 * cr + u30 * di + u31 * dr;
  }
}

/** General k-qubit matrix on `qubits` (qubits[0] least significant in the matrix) with controls cmask. */
export function applyK(st: Float64Array, qubits: ArrayLike<number>, m: ArrayLike<number>, cmask: number, pos: Int32Array, lo: number, hi: number): void {
  const k = qubits.length;
  const d = 1 << k;
  const offs = new Int32Array(d);
  for (let r = 0; r < d; r++) {
    let o = 0;
    for (let j = 0; j < k; j++) if ((r >> j) & 1) o |= 1 << qubits[j]!;
    offs[r] = o;
  }
  const vr = new Float64Array(d);
  const vi = new Float64Array(d);
  for (let t = lo; t < hi; t++) {
    const i = expand(t, pos) | cmask;
    for (let r = 0; r < d; r++) {
      const j = 2 * (i | offs[r]!);
      vr[r] = st[j]!;
      vi[r] = st[j + 1]!;
    }
    for (let r = 0; r < d; r++) {
      let re = 0;
      let im = 0;
      const row = 2 * r * d;
      for (let c = 0; c < d; c++) {
        const mr = m[row + 2 * c]!, mi = m[row + 2 * c + 1]!;
        re += mr * vr[c]! - mi * vi[c]!;
        im += mr * vi[c]! + mi * vr[c]!;
      }
      const j = 2 * (i | offs[r]!);
      st[j] = re;
      st[j + 1] = im;
    }
  }
}
