/** Small dense complex matrices (row-major, interleaved re/im) for 1q and 2q synthesis. */

import { dimOf as dim, identity } from '../matrix.ts';

// The general routines live in the engine's matrix module; these names are the optimizer's.
export { adjoint, identity, kron, dimOf as dim, matmul as mul } from '../matrix.ts';

export type Mat = Float64Array;

/** Builds an n x n matrix from [re, im] pairs given row by row. */
export function fromPairs(n: number, entries: Array<[number, number]>): Mat {
  const m = new Float64Array(2 * n * n);
  entries.forEach(([re, im], i) => {
    m[2 * i] = re;
    m[2 * i + 1] = im;
  });
  return m;
}

export function transpose(a: Mat): Mat {
  const n = dim(a);
  const out = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      out[2 * (j * n + i)] = a[2 * (i * n + j)];
      out[2 * (j * n + i) + 1] = a[2 * (i * n + j) + 1];
    }
  }
  return out;
}

/** e^{i phi} * a */
export function scalePhase(a: Mat, phi: number): Mat {
  const c = Math.cos(phi);
  const s = Math.sin(phi);
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i += 2) {
    out[i] = a[i] * c - a[i + 1] * s;
    out[i + 1] = a[i] * s + a[i + 1] * c;
  }
  return out;
}

/** The global phase phi with a ~ e^{i phi} b, or null when they differ by more than a phase. */
export function phaseBetween(a: Mat, b: Mat, tol = 1e-9): number | null {
  // <b, a> = tr(b^dagger a) = e^{i phi} n when a = e^{i phi} b.
  let re = 0;
  let im = 0;
  for (let i = 0; i < a.length; i += 2) {
    re += b[i] * a[i] + b[i + 1] * a[i + 1];
    im += b[i] * a[i + 1] - b[i + 1] * a[i];
  }
  const n = dim(a);
  const mag = Math.hypot(re, im);
  if (Math.abs(mag - n) > tol * n * 10) return null;
  const phi = Math.atan2(im, re);
  const c = Math.cos(phi);
  const s = Math.sin(phi);
  for (let i = 0; i < a.length; i += 2) {
    const br = b[i] * c - b[i + 1] * s;
    const bi = b[i] * s + b[i + 1] * c;
    if (Math.abs(br - a[i]) > tol || Math.abs(bi - a[i + 1]) > tol) return null;
  }
  return phi;
}

export function isIdentityUpToPhase(a: Mat, tol = 1e-9): number | null {
  return phaseBetween(a, identity(dim(a)), tol);
}

/** Determinant of a 2x2 matrix as [re, im]. */
export function det2(m: Mat): [number, number] {
  const re = m[0] * m[6] - m[1] * m[7] - (m[2] * m[4] - m[3] * m[5]);
  const im = m[0] * m[7] + m[1] * m[6] - (m[2] * m[5] + m[3] * m[4]);
  return [re, im];
}

/** Normalizes an angle to (-pi, pi]. */
export function wrapAngle(a: number): number {
  let x = a % (2 * Math.PI);
  if (x <= -Math.PI) x += 2 * Math.PI;
  else if (x > Math.PI) x -= 2 * Math.PI;
  return x;
}
