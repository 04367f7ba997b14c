/** Classifies single-qubit matrices by what they commute with (Z-diagonal, X-type, X itself). */
import type { Mat } from './complex.ts';

const TOL = 1e-10;

/** Diagonal: commutes with Z, and so through the control of CX. */
export function isDiagonal(m: Mat): boolean {
  return Math.abs(m[2]) < TOL && Math.abs(m[3]) < TOL && Math.abs(m[4]) < TOL && Math.abs(m[5]) < TOL;
}

/** a I + b X: commutes with X, and so through the target of CX. */
export function isXType(m: Mat): boolean {
  return Math.abs(m[0] - m[6]) < TOL && Math.abs(m[1] - m[7]) < TOL && Math.abs(m[2] - m[4]) < TOL && Math.abs(m[3] - m[5]) < TOL;
}

/** e^{i phi} X: flips the computational basis value. */
export function isXLike(m: Mat): boolean {
  return Math.abs(m[0]) < TOL && Math.abs(m[1]) < TOL && Math.abs(m[6]) < TOL && Math.abs(m[7]) < TOL && isXType(m);
}

/** For a diagonal m = diag(e^{ia}, e^{ib}) = e^{i(a+b)/2} Rz(b - a): [theta, phase]. */
export function diagAngles(m: Mat): [number, number] {
  const a = Math.atan2(m[1], m[0]);
  const b = Math.atan2(m[7], m[6]);
  return [b - a, (a + b) / 2];
}
