/** Real 4x4 helpers for KAK: symmetric eigenvectors (Jacobi), real-to-complex, determinant. */
import type { Mat } from './complex.ts';

/** Jacobi eigenvectors of a real symmetric 4x4 matrix (row-major); returns columns as an orthogonal matrix. */
export function jacobi(a: number[]): number[] {
  const n = 4;
  const m = a.slice();
  const v = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p * n + q] ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) {
      const apq = m[p * n + q];
      if (Math.abs(apq) < 1e-300) continue;
      const theta = (m[q * n + q] - m[p * n + p]) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < n; k++) {
        const mkp = m[k * n + p];
        const mkq = m[k * n + q];
        m[k * n + p] = c * mkp - s * mkq;
        m[k * n + q] = s * mkp + c * mkq;
      }
      for (let k = 0; k < n; k++) {
        const mpk = m[p * n + k];
        const mqk = m[q * n + k];
        m[p * n + k] = c * mpk - s * mqk;
        m[q * n + k] = s * mpk + c * mqk;
      }
      for (let k = 0; k < n; k++) {
        const vkp = v[k * n + p];
        const vkq = v[k * n + q];
        v[k * n + p] = c * vkp - s * vkq;
        v[k * n + q] = s * vkp + c * vkq;
      }
    }
  }
  return v;
}

export function realToMat(r: number[]): Mat {
  const m = new Float64Array(32);
  r.forEach((x, i) => (m[2 * i] = x));
  return m;
}

/** Determinant of the real part of a 4x4 complex matrix (used on real orthogonal matrices). */
export function det4real(m: Mat): number {
  const a = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => m[2 * (i * 4 + j)]));
  const det3 = (r: number[][]): number =>
    r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
  let det = 0;
  for (let j = 0; j < 4; j++) {
    const minor = a.slice(1).map((row) => row.filter((_, k) => k !== j));
    det += (j % 2 ? -1 : 1) * a[0][j] * det3(minor);
  }
  return det;
}
