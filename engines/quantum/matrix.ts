/**
 * Small dense complex matrices (row-major, interleaved re/im) used to build gate matrices,
 * fuse gates and check results. Qubit j of a k-qubit matrix is bit j of the row/column index.
 */

export type CMatrix = Float64Array;

export function dimOf(m: CMatrix): number {
  return Math.round(Math.sqrt(m.length / 2));
}

export function identity(dim: number): CMatrix {
  const m = new Float64Array(2 * dim * dim);
  for (let i = 0; i < dim; i++) m[2 * (i * dim + i)] = 1;
  return m;
}

/** Build a matrix from [re, im] pairs given row by row. */
export function fromRows(rows: Array<Array<[number, number]>>): CMatrix {
  const dim = rows.length;
  const m = new Float64Array(2 * dim * dim);
  for (let r = 0; r < dim; r++) {
    for (let c = 0; c < dim; c++) {
      const [re, im] = rows[r]![c]!;
      m[2 * (r * dim + c)] = re;
      m[2 * (r * dim + c) + 1] = im;
    }
  }
  return m;
}

export function diagonal(entries: Array<[number, number]>): CMatrix {
  const dim = entries.length;
  const m = new Float64Array(2 * dim * dim);
  entries.forEach(([re, im], i) => {
    m[2 * (i * dim + i)] = re;
    m[2 * (i * dim + i) + 1] = im;
  });
  return m;
}

/** a · b (apply b first, then a). */
export function matmul(a: CMatrix, b: CMatrix): CMatrix {
  const n = dimOf(a);
  const out = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const ar = a[2 * (i * n + k)]!;
      const ai = a[2 * (i * n + k) + 1]!;
      if (ar === 0 && ai === 0) continue;
      for (let j = 0; j < n; j++) {
        const br = b[2 * (k * n + j)]!;
        const bi = b[2 * (k * n + j) + 1]!;
        out[2 * (i * n + j)] += ar * br - ai * bi;
        out[2 * (i * n + j) + 1] += ar * bi + ai * br;
      }
    }
  }
  return out;
}

/**
 * Kronecker product for the qubit order "qubits[0] least significant": the matrix of `lo`
 * on the low qubits and `hi` on the high ones is kron(hi, lo).
 */
export function kron(hi: CMatrix, lo: CMatrix): CMatrix {
  const nh = dimOf(hi);
  const nl = dimOf(lo);
  const n = nh * nl;
  const out = new Float64Array(2 * n * n);
  for (let i1 = 0; i1 < nh; i1++)
    for (let j1 = 0; j1 < nh; j1++) {
      const hr = hi[2 * (i1 * nh + j1)]!;
      const hm = hi[2 * (i1 * nh + j1) + 1]!;
      for (let i2 = 0; i2 < nl; i2++)
        for (let j2 = 0; j2 < nl; j2++) {
          const lr = lo[2 * (i2 * nl + j2)]!;
          const li = lo[2 * (i2 * nl + j2) + 1]!;
          const r = i1 * nl + i2;
          const c = j1 * nl + j2;
          out[2 * (r * n + c)] = hr * lr - hm * li;
          out[2 * (r * n + c) + 1] = hr * li + hm * lr;
        }
    }
  return out;
}

export function adjoint(a: CMatrix): CMatrix {
  const n = dimOf(a);
  const out = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      out[2 * (j * n + i)] = a[2 * (i * n + j)]!;
      out[2 * (j * n + i) + 1] = -a[2 * (i * n + j) + 1]!;
    }
  }
  return out;
}

export function scale(a: CMatrix, re: number, im: number): CMatrix {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i += 2) {
    out[i] = a[i]! * re - a[i + 1]! * im;
    out[i + 1] = a[i]! * im + a[i + 1]! * re;
  }
  return out;
}

/**
 * Embed `m` (acting on `positions`, its qubit j at bit positions[j]) into a `k`-qubit matrix.
 */
export function embed(m: CMatrix, positions: number[], k: number): CMatrix {
  const dim = 1 << k;
  const sub = 1 << positions.length;
  let mask = 0;
  for (const p of positions) mask |= 1 << p;
  const out = new Float64Array(2 * dim * dim);
  const subIndex = (i: number): number => {
    let s = 0;
    positions.forEach((p, j) => {
      if ((i >> p) & 1) s |= 1 << j;
    });
    return s;
  };
  for (let r = 0; r < dim; r++) {
    const rs = subIndex(r);
    const rest = r & ~mask;
    for (let cs = 0; cs < sub; cs++) {
      let c = rest;
      positions.forEach((p, j) => {
        if ((cs >> j) & 1) c |= 1 << p;
      });
      out[2 * (r * dim + c)] = m[2 * (rs * sub + cs)]!;
      out[2 * (r * dim + c) + 1] = m[2 * (rs * sub + cs) + 1]!;
    }
  }
  return out;
}

/**
 * Add `nctrl` positive controls below the matrix: the controls become the lowest qubits
 * (qubits[0..nctrl)) and `m` acts on the higher ones when every control is 1.
 */
export function controlled(m: CMatrix, nctrl: number): CMatrix {
  if (nctrl === 0) return m;
  const sub = dimOf(m);
  const cdim = 1 << nctrl;
  const dim = sub * cdim;
  const out = identity(dim);
  const all = cdim - 1;
  for (let r = 0; r < sub; r++) {
    for (let c = 0; c < sub; c++) {
      const R = r * cdim + all;
      const C = c * cdim + all;
      out[2 * (R * dim + C)] = m[2 * (r * sub + c)]!;
      out[2 * (R * dim + C) + 1] = m[2 * (r * sub + c) + 1]!;
    }
  }
  return out;
}

/** True when `a` equals `b` up to a global phase, within `tol`. */
export function equalUpToPhase(a: CMatrix, b: CMatrix, tol = 1e-9): boolean {
  if (a.length !== b.length) return false;
  let pr = 0;
  let pi = 0;
  let best = 0;
  for (let i = 0; i < a.length; i += 2) {
    const mag = Math.hypot(b[i]!, b[i + 1]!);
    if (mag > best) {
      best = mag;
      // phase = a_i / b_i
      const d = b[i]! * b[i]! + b[i + 1]! * b[i + 1]!;
      pr = (a[i]! * b[i]! + a[i + 1]! * b[i + 1]!) / d;
      pi = (a[i + 1]! * b[i]! - a[i]! * b[i + 1]!) / d;
    }
  }
  for (let i = 0; i < a.length; i += 2) {
    const re = b[i]! * pr - b[i + 1]! * pi;
    const im = b[i]! * pi + b[i + 1]! * pr;
    if (Math.abs(re - a[i]!) > tol || Math.abs(im - a[i + 1]!) > tol) return false;
  }
  return true;
}

/** True when the matrix has no off-diagonal entry. */
export function isDiagonal(m: CMatrix, tol = 0): boolean {
  const n = dimOf(m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      if (Math.abs(m[2 * (i * n + j)]!) > tol || Math.abs(m[2 * (i * n + j) + 1]!) > tol) return false;
    }
  }
  return true;
}
