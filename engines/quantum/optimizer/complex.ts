/** Small dense complex matrices (row-major, interleaved re/im) for 1q and 2q synthesis. */

export type Mat = Float64Array;

export function dim(m: Mat): number {
  return Math.round(Math.sqrt(m.length / 2));
}

export function identity(n: number): Mat {
  const m = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) m[2 * (i * n + i)] = 1;
  return m;
}

/** Builds an n x n matrix from [re, im] pairs given row by row. */
export function fromPairs(n: number, entries: Array<[number, number]>): Mat {
  const m = new Float64Array(2 * n * n);
  entries.forEach(([re, im], i) => {
    m[2 * i] = re;
    m[2 * i + 1] = im;
  });
  return m;
}

/** a * b (a applied after b when acting on column vectors). */
export function mul(a: Mat, b: Mat): Mat {
  const n = dim(a);
  const out = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const ar = a[2 * (i * n + k)];
      const ai = a[2 * (i * n + k) + 1];
      if (ar === 0 && ai === 0) continue;
      for (let j = 0; j < n; j++) {
        const br = b[2 * (k * n + j)];
        const bi = b[2 * (k * n + j) + 1];
        out[2 * (i * n + j)] += ar * br - ai * bi;
        out[2 * (i * n + j) + 1] += ar * bi + ai * br;
      }
    }
  }
  return out;
}

export function adjoint(a: Mat): Mat {
  const n = dim(a);
  const out = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      out[2 * (j * n + i)] = a[2 * (i * n + j)];
      out[2 * (j * n + i) + 1] = -a[2 * (i * n + j) + 1];
    }
  }
  return out;
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

/**
 * Kronecker product for qubit order "qubits[0] least significant": the 4x4 matrix of
 * `lo` on qubit 0 and `hi` on qubit 1 is kron(hi, lo).
 */
export function kron(hi: Mat, lo: Mat): Mat {
  const nh = dim(hi);
  const nl = dim(lo);
  const n = nh * nl;
  const out = new Float64Array(2 * n * n);
  for (let i1 = 0; i1 < nh; i1++)
    for (let j1 = 0; j1 < nh; j1++) {
      const hr = hi[2 * (i1 * nh + j1)];
      const hi_ = hi[2 * (i1 * nh + j1) + 1];
      for (let i2 = 0; i2 < nl; i2++)
        for (let j2 = 0; j2 < nl; j2++) {
          const lr = lo[2 * (i2 * nl + j2)];
          const li = lo[2 * (i2 * nl + j2) + 1];
          const r = i1 * nl + i2;
          const c = j1 * nl + j2;
          out[2 * (r * n + c)] = hr * lr - hi_ * li;
          out[2 * (r * n + c) + 1] = hr * li + hi_ * lr;
        }
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
