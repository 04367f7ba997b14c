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
  const two = pos.length === 2;
  const p0 = pos[0]!;
  const p1 = pos[1] ?? 0;
  for (let t = lo; t < hi; t++) {
    const i0 = 2 * ((two ? expand2(t, p0, p1) : expand(t, pos)) | cmask);
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
  const two = pos.length === 2;
  const p0 = pos[0]!;
  const p1 = pos[1] ?? 0;
  for (let t = lo; t < hi; t++) {
    const i = 2 * ((two ? expand2(t, p0, p1) : expand(t, pos)) | mask);
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

/** Insert zero bits at two sorted positions a < b. */
function expand2(t: number, a: number, b: number): number {
  const i = ((t >>> a) << (a + 1)) | (t & ((1 << a) - 1));
  return ((i >>> b) << (b + 1)) | (i & ((1 << b) - 1));
}

/** Two-qubit matrix (4x4, q0 the low matrix bit) on q0, q1 with controls cmask. */
export function apply2(st: Float64Array, q0: number, q1: number, m: ArrayLike<number>, cmask: number, pos: Int32Array, lo: number, hi: number): void {
  const o1 = 2 << q0;
  const o2 = 2 << q1;
  const o3 = o1 + o2;
  // Matrix entries read from a typed array: 32 named locals would spill and slow V8 down.
  const u = Float64Array.from(m);
  const p0 = pos[0]!;
  const p1 = pos[1]!;
  const simple = pos.length === 2;
  for (let t = lo; t < hi; t++) {
    const i = simple ? expand2(t, p0, p1) : expand(t, pos) | cmask;
    const j0 = 2 * i;
    const j1 = j0 + o1;
    const j2 = j0 + o2;
    const j3 = j0 + o3;
    const ar = st[j0]!, ai = st[j0 + 1]!, br = st[j1]!, bi = st[j1 + 1]!;
    const cr = st[j2]!, ci = st[j2 + 1]!, dr = st[j3]!, di = st[j3 + 1]!;
    st[j0] = u[0]! * ar - u[1]! * ai + u[2]! * br - u[3]! * bi + u[4]! * cr - u[5]! * ci + u[6]! * dr - u[7]! * di;
    st[j0 + 1] = u[0]! * ai + u[1]! * ar + u[2]! * bi + u[3]! * br + u[4]! * ci + u[5]! * cr + u[6]! * di + u[7]! * dr;
    st[j1] = u[8]! * ar - u[9]! * ai + u[10]! * br - u[11]! * bi + u[12]! * cr - u[13]! * ci + u[14]! * dr - u[15]! * di;
    st[j1 + 1] = u[8]! * ai + u[9]! * ar + u[10]! * bi + u[11]! * br + u[12]! * ci + u[13]! * cr + u[14]! * di + u[15]! * dr;
    st[j2] = u[16]! * ar - u[17]! * ai + u[18]! * br - u[19]! * bi + u[20]! * cr - u[21]! * ci + u[22]! * dr - u[23]! * di;
    st[j2 + 1] = u[16]! * ai + u[17]! * ar + u[18]! * bi + u[19]! * br + u[20]! * ci + u[21]! * cr + u[22]! * di + u[23]! * dr;
    st[j3] = u[24]! * ar - u[25]! * ai + u[26]! * br - u[27]! * bi + u[28]! * cr - u[29]! * ci + u[30]! * dr - u[31]! * di;
    st[j3 + 1] = u[24]! * ai + u[25]! * ar + u[26]! * bi + u[27]! * br + u[28]! * ci + u[29]! * cr + u[30]! * di + u[31]! * dr;
  }
}

/**
 * (A on q0) ⊗ (B on q1), then optionally a CX, in one pass and half the arithmetic of a
 * dense 4x4: `cx` 1 is control q0 / target q1, 2 is control q1 / target q0, 0 none.
 * pos holds the sorted positions of q0 and q1.
 */
export function applyKron2(st: Float64Array, q0: number, q1: number, A: ArrayLike<number>, B: ArrayLike<number>, cx: number, pos: Int32Array, lo: number, hi: number): void {
  const o1 = 2 << q0;
  const o2 = 2 << q1;
  const o3 = o1 + o2;
  // 16 matrix locals stay in registers (32 would spill, see apply2).
  const a0 = A[0]!, a1 = A[1]!, a2 = A[2]!, a3 = A[3]!, a4 = A[4]!, a5 = A[5]!, a6 = A[6]!, a7 = A[7]!;
  const b0 = B[0]!, b1 = B[1]!, b2 = B[2]!, b3 = B[3]!, b4 = B[4]!, b5 = B[5]!, b6 = B[6]!, b7 = B[7]!;
  // Where the (q0, q1) = (1,0), (0,1), (1,1) results go: the CX is a relabelling of the stores.
  const k1 = cx === 1 ? o3 : o1;
  const k2 = cx === 2 ? o3 : o2;
  const k3 = cx === 1 ? o1 : cx === 2 ? o2 : o3;
  const p0 = pos[0]!;
  const p1 = pos[1]!;
  for (let t = lo; t < hi; t++) {
    const j0 = 2 * expand2(t, p0, p1);
    const j1 = j0 + o1;
    const j2 = j0 + o2;
    const j3 = j0 + o3;
    const x0r = st[j0]!, x0i = st[j0 + 1]!, x1r = st[j1]!, x1i = st[j1 + 1]!;
    const x2r = st[j2]!, x2i = st[j2 + 1]!, x3r = st[j3]!, x3i = st[j3 + 1]!;
    // A on q0: pairs (x0, x1) and (x2, x3).
    const y0r = a0 * x0r - a1 * x0i + a2 * x1r - a3 * x1i;
    const y0i = a0 * x0i + a1 * x0r + a2 * x1i + a3 * x1r;
    const y1r = a4 * x0r - a5 * x0i + a6 * x1r - a7 * x1i;
    const y1i = a4 * x0i + a5 * x0r + a6 * x1i + a7 * x1r;
    const y2r = a0 * x2r - a1 * x2i + a2 * x3r - a3 * x3i;
    const y2i = a0 * x2i + a1 * x2r + a2 * x3i + a3 * x3r;
    const y3r = a4 * x2r - a5 * x2i + a6 * x3r - a7 * x3i;
    const y3i = a4 * x2i + a5 * x2r + a6 * x3i + a7 * x3r;
    // B on q1: pairs (y0, y2) and (y1, y3).
    st[j0] = b0 * y0r - b1 * y0i + b2 * y2r - b3 * y2i;
    st[j0 + 1] = b0 * y0i + b1 * y0r + b2 * y2i + b3 * y2r;
    st[j0 + k2] = b4 * y0r - b5 * y0i + b6 * y2r - b7 * y2i;
    st[j0 + k2 + 1] = b4 * y0i + b5 * y0r + b6 * y2i + b7 * y2r;
    st[j0 + k1] = b0 * y1r - b1 * y1i + b2 * y3r - b3 * y3i;
    st[j0 + k1 + 1] = b0 * y1i + b1 * y1r + b2 * y3i + b3 * y3r;
    st[j0 + k3] = b4 * y1r - b5 * y1i + b6 * y3r - b7 * y3i;
    st[j0 + k3 + 1] = b4 * y1i + b5 * y1r + b6 * y3i + b7 * y3r;
  }
}

/**
 * A fan of controlled phases sharing the hub qubit h (the QFT's cp ladder in one pass): every
 * amplitude with bit h set is multiplied by lo[i & loMask] · hi[i >>> loBits], tables of
 * e^{iΣθ} over the low and high index bits.
 */
export function applyFan(st: Float64Array, h: number, lo: Float64Array, hi: Float64Array, loBits: number, from: number, to: number): void {
  const hb = 1 << h;
  const low = hb - 1;
  const loMask = (1 << loBits) - 1;
  const hiMask = hi.length / 2 - 1;
  for (let t = from; t < to; t++) {
    const i = (((t >>> h) << (h + 1)) | (t & low)) | hb;
    const a = 2 * (i & loMask);
    const b = 2 * ((i >>> loBits) & hiMask);
    const fr = lo[a]! * hi[b]! - lo[a + 1]! * hi[b + 1]!;
    const fi = lo[a]! * hi[b + 1]! + lo[a + 1]! * hi[b]!;
    const re = st[2 * i]!, im = st[2 * i + 1]!;
    st[2 * i] = re * fr - im * fi;
    st[2 * i + 1] = re * fi + im * fr;
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
