/** Matrices of the single-qubit gates the optimizer knows by name (Qiskit / OpenQASM conventions). */
import { fromPairs, type Mat } from './complex.ts';

const S2 = Math.SQRT1_2;

export function rz(t: number): Mat {
  return fromPairs(2, [[Math.cos(t / 2), -Math.sin(t / 2)], [0, 0], [0, 0], [Math.cos(t / 2), Math.sin(t / 2)]]);
}
export function ry(t: number): Mat {
  const c = Math.cos(t / 2);
  const s = Math.sin(t / 2);
  return fromPairs(2, [[c, 0], [-s, 0], [s, 0], [c, 0]]);
}
export function rx(t: number): Mat {
  const c = Math.cos(t / 2);
  const s = Math.sin(t / 2);
  return fromPairs(2, [[c, 0], [0, -s], [0, -s], [c, 0]]);
}
export function phase(l: number): Mat {
  return fromPairs(2, [[1, 0], [0, 0], [0, 0], [Math.cos(l), Math.sin(l)]]);
}
/** U3(theta, phi, lambda) = [[cos, -e^{i lambda} sin], [e^{i phi} sin, e^{i(phi+lambda)} cos]]. */
export function u3(t: number, p: number, l: number): Mat {
  const c = Math.cos(t / 2);
  const s = Math.sin(t / 2);
  return fromPairs(2, [
    [c, 0],
    [-Math.cos(l) * s, -Math.sin(l) * s],
    [Math.cos(p) * s, Math.sin(p) * s],
    [Math.cos(p + l) * c, Math.sin(p + l) * c],
  ]);
}

const FIXED: Record<string, Mat> = {
  id: fromPairs(2, [[1, 0], [0, 0], [0, 0], [1, 0]]),
  x: fromPairs(2, [[0, 0], [1, 0], [1, 0], [0, 0]]),
  y: fromPairs(2, [[0, 0], [0, -1], [0, 1], [0, 0]]),
  z: fromPairs(2, [[1, 0], [0, 0], [0, 0], [-1, 0]]),
  h: fromPairs(2, [[S2, 0], [S2, 0], [S2, 0], [-S2, 0]]),
  s: phase(Math.PI / 2),
  sdg: phase(-Math.PI / 2),
  t: phase(Math.PI / 4),
  tdg: phase(-Math.PI / 4),
  sx: fromPairs(2, [[0.5, 0.5], [0.5, -0.5], [0.5, -0.5], [0.5, 0.5]]),
  sxdg: fromPairs(2, [[0.5, -0.5], [0.5, 0.5], [0.5, 0.5], [0.5, -0.5]]),
};
FIXED.i = FIXED.id;
FIXED.u0 = FIXED.id;

/** Names of parameterless 1q gates, usable as exact targets by the synthesizer. */
export const FIXED_1Q = Object.keys(FIXED);

/** The matrix of a named single-qubit gate, or null when the name is not a 1q gate known here. */
export function matrix1q(name: string, p: number[]): Mat | null {
  if (name in FIXED) return FIXED[name];
  switch (name) {
    case 'rx':
      return rx(p[0]);
    case 'ry':
      return ry(p[0]);
    case 'rz':
      return rz(p[0]);
    case 'p':
    case 'u1':
    case 'phase':
      return phase(p[0]);
    case 'u2':
      return u3(Math.PI / 2, p[0], p[1]);
    case 'u3':
    case 'u':
    case 'U':
      return u3(p[0], p[1], p[2]);
    case 'r':
      return u3(p[0], p[1] - Math.PI / 2, -p[1] + Math.PI / 2);
    default:
      return null;
  }
}
