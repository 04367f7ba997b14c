// Small dense linear algebra for least squares: normal equations, inversion, products.

/** A row-major dense matrix. */
export type Matrix = number[][];

export function zeros(rows: number, cols: number): Matrix {
  return Array.from({ length: rows }, () => new Array<number>(cols).fill(0));
}

export function transpose(a: Matrix): Matrix {
  const rows = a.length;
  const cols = rows ? a[0].length : 0;
  const t = zeros(cols, rows);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j][i] = a[i][j];
  return t;
}

export function multiply(a: Matrix, b: Matrix): Matrix {
  const n = a.length;
  const m = b[0]?.length ?? 0;
  const k = b.length;
  const c = zeros(n, m);
  for (let i = 0; i < n; i++)
    for (let p = 0; p < k; p++) {
      const aip = a[i][p];
      if (aip === 0) continue;
      for (let j = 0; j < m; j++) c[i][j] += aip * b[p][j];
    }
  return c;
}

export function multiplyVec(a: Matrix, v: number[]): number[] {
  return a.map((row) => row.reduce((s, x, j) => s + x * v[j], 0));
}

/** Inverse of a square matrix by Gauss-Jordan with partial pivoting; undefined when singular. */
export function invert(a: Matrix): Matrix | undefined {
  const n = a.length;
  const m = a.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    const scale = Math.abs(m[pivot][col]);
    if (!(scale > 1e-12)) return undefined;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    const inv = 1 / m[col][col];
    for (let j = 0; j < 2 * n; j++) m[col][j] *= inv;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r][col];
      if (f === 0) continue;
      for (let j = 0; j < 2 * n; j++) m[r][j] -= f * m[col][j];
    }
  }
  return m.map((row) => row.slice(n));
}

/**
 * Weighted least squares: minimises sum w_i (y_i - H_i x)^2. Returns the estimate and the
 * cofactor matrix (H^T W H)^-1, or undefined when the geometry is singular.
 */
export function weightedLeastSquares(h: Matrix, y: number[], w: number[]): { x: number[]; q: Matrix } | undefined {
  const n = h[0]?.length ?? 0;
  const ata = zeros(n, n);
  const aty = new Array<number>(n).fill(0);
  for (let i = 0; i < h.length; i++) {
    const row = h[i];
    for (let a = 0; a < n; a++) {
      aty[a] += row[a] * w[i] * y[i];
      for (let b = 0; b < n; b++) ata[a][b] += row[a] * w[i] * row[b];
    }
  }
  const q = invert(ata);
  if (!q) return undefined;
  return { x: multiplyVec(q, aty), q };
}
