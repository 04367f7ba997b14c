/** Complex SVD by one-sided (Hestenes) Jacobi: A (m x n, row-major interleaved) = U Σ V†. */

export interface Svd {
  /** m x n, columns scaled to unit norm (zero columns for zero singular values). */
  u: Float64Array;
  s: Float64Array;
  /** n x n unitary. */
  v: Float64Array;
}

export function svd(a: Float64Array, m: number, n: number): Svd {
  const u = Float64Array.from(a);
  const v = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) v[2 * (i * n + i)] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let rotated = false;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        let alpha = 0;
        let beta = 0;
        let gr = 0;
        let gi = 0;
        for (let i = 0; i < m; i++) {
          const pr = u[2 * (i * n + p)]!, pi = u[2 * (i * n + p) + 1]!;
          const qr = u[2 * (i * n + q)]!, qi = u[2 * (i * n + q) + 1]!;
          alpha += pr * pr + pi * pi;
          beta += qr * qr + qi * qi;
          // γ = a_p† a_q
          gr += pr * qr + pi * qi;
          gi += pr * qi - pi * qr;
        }
        const g = Math.hypot(gr, gi);
        if (g <= 1e-15 * Math.sqrt(alpha * beta) || g < 1e-300) continue;
        rotated = true;
        const zeta = (beta - alpha) / (2 * g);
        const t = (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = c * t;
        // Phase e^{-iφ} applied to column q makes γ real and positive.
        const er = gr / g;
        const ei = -gi / g;
        const rot = (x: Float64Array, rows: number): void => {
          for (let i = 0; i < rows; i++) {
            const ip = 2 * (i * n + p);
            const iq = 2 * (i * n + q);
            const pr = x[ip]!, pi = x[ip + 1]!;
            const qr0 = x[iq]!, qi0 = x[iq + 1]!;
            const qr = qr0 * er - qi0 * ei;
            const qi = qr0 * ei + qi0 * er;
            x[ip] = c * pr - s * qr;
            x[ip + 1] = c * pi - s * qi;
            x[iq] = s * pr + c * qr;
            x[iq + 1] = s * pi + c * qi;
          }
        };
        rot(u, m);
        rot(v, n);
      }
    }
    if (!rotated) break;
  }
  const s = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let nn = 0;
    for (let i = 0; i < m; i++) nn += u[2 * (i * n + j)]! ** 2 + u[2 * (i * n + j) + 1]! ** 2;
    s[j] = Math.sqrt(nn);
    if (s[j]! > 0) for (let i = 0; i < m; i++) {
      u[2 * (i * n + j)] /= s[j]!;
      u[2 * (i * n + j) + 1] /= s[j]!;
    }
  }
  return { u, s, v };
}
