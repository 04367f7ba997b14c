/**
 * In-place statevector kernels over interleaved complex128 (re, im) amplitudes.
 * `cmask` selects the basis states on which a (controlled) gate acts: only indices with every
 * bit of cmask set are touched. `lo`/`hi` restrict the outer loop to a slice of the work so
 * that worker threads can split one pass.
 */

/** One-qubit matrix m = [a, b; c, d] (8 numbers) on qubit q. */
export function apply1(st: Float64Array, q: number, m: ArrayLike<number>, cmask = 0, lo = 0, hi = st.length >> 1): void {
  const s = 1 << q;
  const ar = m[0]!, ai = m[1]!, br = m[2]!, bi = m[3]!, cr = m[4]!, ci = m[5]!, dr = m[6]!, di = m[7]!;
  // Iterate over the indices with bit q clear, in [lo, hi) of the half-space enumeration.
  for (let k = lo; k < hi; k++) {
    const i = ((k >> q) << (q + 1)) | (k & (s - 1));
    if ((i & cmask) !== cmask) continue;
    const i0 = 2 * i;
    const i1 = 2 * (i | s);
    const xr = st[i0]!, xi = st[i0 + 1]!, yr = st[i1]!, yi = st[i1 + 1]!;
    st[i0] = ar * xr - ai * xi + br * yr - bi * yi;
    st[i0 + 1] = ar * xi + ai * xr + br * yi + bi * yr;
    st[i1] = cr * xr - ci * xi + dr * yr - di * yi;
    st[i1 + 1] = cr * xi + ci * xr + dr * yi + di * yr;
  }
}

/** Number of half-space indices for apply1/applyX loops. */
export function halfCount(st: Float64Array): number {
  return st.length >> 2;
}

/** Pauli X on qubit q (with controls in cmask): swaps amplitude pairs. */
export function applyX(st: Float64Array, q: number, cmask = 0, lo = 0, hi = st.length >> 2): void {
  const s = 1 << q;
  for (let k = lo; k < hi; k++) {
    const i = ((k >> q) << (q + 1)) | (k & (s - 1));
    if ((i & cmask) !== cmask) continue;
    const i0 = 2 * i;
    const i1 = 2 * (i | s);
    const xr = st[i0]!, xi = st[i0 + 1]!;
    st[i0] = st[i1]!;
    st[i0 + 1] = st[i1 + 1]!;
    st[i1] = xr;
    st[i1 + 1] = xi;
  }
}

/** Multiply by e^{iφ} (given as cos, sin) every amplitude whose index has all bits of mask set. */
export function applyPhase(st: Float64Array, mask: number, c: number, s: number, lo = 0, hi = st.length >> 1): void {
  for (let i = lo; i < hi; i++) {
    if ((i & mask) !== mask) continue;
    const re = st[2 * i]!, im = st[2 * i + 1]!;
    st[2 * i] = re * c - im * s;
    st[2 * i + 1] = re * s + im * c;
  }
}

/** Diagonal one-qubit gate diag(d0, d1) on qubit q. */
export function applyDiag1(st: Float64Array, q: number, d: ArrayLike<number>, cmask = 0, lo = 0, hi = st.length >> 1): void {
  const bit = 1 << q;
  for (let i = lo; i < hi; i++) {
    if ((i & cmask) !== cmask) continue;
    const o = i & bit ? 2 : 0;
    const c = d[o]!, s = d[o + 1]!;
    const re = st[2 * i]!, im = st[2 * i + 1]!;
    st[2 * i] = re * c - im * s;
    st[2 * i + 1] = re * s + im * c;
  }
}

/** Swap qubits a and b. */
export function applySwap(st: Float64Array, a: number, b: number, cmask = 0, lo = 0, hi = st.length >> 1): void {
  const ba = 1 << a;
  const bb = 1 << b;
  for (let i = lo; i < hi; i++) {
    // Visit each pair once: from the index with bit a set and bit b clear.
    if ((i & ba) === 0 || (i & bb) !== 0 || (i & cmask) !== cmask) continue;
    const j = (i ^ ba) | bb;
    const r = st[2 * i]!, m = st[2 * i + 1]!;
    st[2 * i] = st[2 * j]!;
    st[2 * i + 1] = st[2 * j + 1]!;
    st[2 * j] = r;
    st[2 * j + 1] = m;
  }
}

/** Two-qubit matrix (4x4, qubits[0] = q0 least significant) on q0, q1. */
export function apply2(st: Float64Array, q0: number, q1: number, m: ArrayLike<number>, cmask = 0, lo = 0, hi = st.length >> 3): void {
  const a = Math.min(q0, q1);
  const b = Math.max(q0, q1);
  const s0 = 1 << q0;
  const s1 = 1 << q1;
  const ma = (1 << a) - 1;
  const u = Float64Array.from(m as ArrayLike<number>);
  for (let k = lo; k < hi; k++) {
    // Insert zero bits at positions a then b.
    let i = ((k >> a) << (a + 1)) | (k & ma);
    i = ((i >> b) << (b + 1)) | (i & ((1 << b) - 1));
    if ((i & cmask) !== cmask) continue;
    const j0 = 2 * i, j1 = 2 * (i | s0), j2 = 2 * (i | s1), j3 = 2 * (i | s0 | s1);
    const x0r = st[j0]!, x0i = st[j0 + 1]!, x1r = st[j1]!, x1i = st[j1 + 1]!;
    const x2r = st[j2]!, x2i = st[j2 + 1]!, x3r = st[j3]!, x3i = st[j3 + 1]!;
    for (let r = 0; r < 4; r++) {
      const o = 8 * r;
      const re =
        u[o]! * x0r - u[o + 1]! * x0i + u[o + 2]! * x1r - u[o + 3]! * x1i +
        u[o + 4]! * x2r - u[o + 5]! * x2i + u[o + 6]! * x3r - u[o + 7]! * x3i;
      const im =
        u[o]! * x0i + u[o + 1]! * x0r + u[o + 2]! * x1i + u[o + 3]! * x1r +
        u[o + 4]! * x2i + u[o + 5]! * x2r + u[o + 6]! * x3i + u[o + 7]! * x3r;
      tmp[2 * r] = re;
      tmp[2 * r + 1] = im;
    }
    st[j0] = tmp[0]!; st[j0 + 1] = tmp[1]!;
    st[j1] = tmp[2]!; st[j1 + 1] = tmp[3]!;
    st[j2] = tmp[4]!; st[j2 + 1] = tmp[5]!;
    st[j3] = tmp[6]!; st[j3 + 1] = tmp[7]!;
  }
}
const tmp = new Float64Array(8);

/** General k-qubit matrix on `qubits` (qubits[0] least significant in the matrix). */
export function applyK(st: Float64Array, qubits: number[], m: ArrayLike<number>, cmask = 0, lo = 0, hi?: number): void {
  const k = qubits.length;
  const d = 1 << k;
  const sorted = [...qubits].sort((x, y) => x - y);
  const offs = new Int32Array(d);
  for (let r = 0; r < d; r++) {
    let o = 0;
    for (let j = 0; j < k; j++) if ((r >> j) & 1) o |= 1 << qubits[j]!;
    offs[r] = o;
  }
  const total = hi ?? st.length >> (1 + k);
  const vr = new Float64Array(d);
  const vi = new Float64Array(d);
  for (let t = lo; t < total; t++) {
    let i = t;
    for (const b of sorted) i = ((i >> b) << (b + 1)) | (i & ((1 << b) - 1));
    if ((i & cmask) !== cmask) continue;
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
