/**
 * Two-qubit KAK (Cartan) decomposition and resynthesis: U = (A1 x A0) exp(i(a XX + b YY + c ZZ)) (B1 x B0)
 * up to phase, then the canonical part with 0 to 3 CX. Qubit 0 is the least significant index.
 */
import { adjoint, dim, fromPairs, identity, kron, mul, phaseBetween, transpose, type Mat } from './complex.ts';
import { matrix1q, rx, ry, rz } from './gates1q.ts';
import type { IrOp } from './ir.ts';
import { det4real, jacobi, realToMat } from './real4.ts';
import { rng } from './sim.ts';

const S = Math.SQRT1_2;
/** The magic basis: local SU(2) x SU(2) becomes real SO(4) in it. */
const MAGIC = fromPairs(4, [
  [S, 0], [0, 0], [0, 0], [0, S],
  [0, 0], [0, S], [S, 0], [0, 0],
  [0, 0], [0, S], [-S, 0], [0, 0],
  [S, 0], [0, 0], [0, 0], [0, -S],
]);
const MAGIC_DG = adjoint(MAGIC);

/** Splits a 4x4 matrix equal to kron(hi, lo) up to phase into unit-determinant factors. */
function splitKron(m: Mat): [Mat, Mat] {
  let best = -1;
  let bi = 0;
  let bj = 0;
  for (let i1 = 0; i1 < 2; i1++) for (let j1 = 0; j1 < 2; j1++) {
    let norm = 0;
    for (let i2 = 0; i2 < 2; i2++) for (let j2 = 0; j2 < 2; j2++) {
      const k = 2 * ((i1 * 2 + i2) * 4 + j1 * 2 + j2);
      norm += m[k] ** 2 + m[k + 1] ** 2;
    }
    if (norm > best) [best, bi, bj] = [norm, i1, j1];
  }
  const lo = new Float64Array(8);
  for (let i2 = 0; i2 < 2; i2++) for (let j2 = 0; j2 < 2; j2++) {
    const k = 2 * ((bi * 2 + i2) * 4 + bj * 2 + j2);
    lo[2 * (i2 * 2 + j2)] = m[k];
    lo[2 * (i2 * 2 + j2) + 1] = m[k + 1];
  }
  normalizeSU2(lo);
  // hi[a][b] = m[(a, i2), (b, j2)] / lo[i2][j2] at lo's largest entry.
  let li = 0;
  for (let k = 1; k < 4; k++) if (Math.hypot(lo[2 * k], lo[2 * k + 1]) > Math.hypot(lo[2 * li], lo[2 * li + 1])) li = k;
  const i2 = li >> 1;
  const j2 = li & 1;
  const lr = lo[2 * li];
  const lim = lo[2 * li + 1];
  const den = lr * lr + lim * lim;
  const hi = new Float64Array(8);
  for (let a = 0; a < 2; a++) for (let b = 0; b < 2; b++) {
    const k = 2 * ((a * 2 + i2) * 4 + b * 2 + j2);
    hi[2 * (a * 2 + b)] = (m[k] * lr + m[k + 1] * lim) / den;
    hi[2 * (a * 2 + b) + 1] = (m[k + 1] * lr - m[k] * lim) / den;
  }
  normalizeSU2(hi);
  return [hi, lo];
}

function normalizeSU2(u: Mat): void {
  const dr = u[0] * u[6] - u[1] * u[7] - (u[2] * u[4] - u[3] * u[5]);
  const di = u[0] * u[7] + u[1] * u[6] - (u[2] * u[5] + u[3] * u[4]);
  const mag = Math.sqrt(Math.hypot(dr, di));
  const ang = -Math.atan2(di, dr) / 2;
  const c = Math.cos(ang) / mag;
  const s = Math.sin(ang) / mag;
  for (let k = 0; k < 8; k += 2) {
    const r = u[k];
    u[k] = r * c - u[k + 1] * s;
    u[k + 1] = r * s + u[k + 1] * c;
  }
}

export interface Kak {
  /** after = kron(a1, a0), before = kron(b1, b0) */
  a1: Mat;
  a0: Mat;
  b1: Mat;
  b0: Mat;
  a: number;
  b: number;
  c: number;
}

/** Signs of XX, YY, ZZ on the magic basis vectors (they are diagonal there). */
function pauliSigns(): number[][] {
  const P = ['x', 'y', 'z'].map((n) => matrix1q(n, []) as Mat);
  return P.map((p) => {
    const d = mul(MAGIC_DG, mul(kron(p, p), MAGIC));
    return [0, 1, 2, 3].map((k) => Math.sign(d[2 * (k * 4 + k)]));
  });
}
const SIGNS = pauliSigns();

export function kak(u: Mat): Kak {
  const up = mul(MAGIC_DG, mul(u, MAGIC));
  const m2 = mul(transpose(up), up);
  const re: number[] = [];
  const im: number[] = [];
  for (let k = 0; k < 16; k++) {
    re.push(m2[2 * k]);
    im.push(m2[2 * k + 1]);
  }
  const rand = rng(7);
  for (let attempt = 0; attempt < 20; attempt++) {
    const r = attempt === 0 ? 0.6180339887 : rand() * 4 - 2;
    const p = jacobi(re.map((x, k) => x + r * im[k]));
    const P = realToMat(p);
    const d = mul(transpose(P), mul(m2, P));
    let ok = true;
    for (let i = 0; i < 4 && ok; i++) for (let j = 0; j < 4; j++) if (i !== j && Math.hypot(d[2 * (i * 4 + j)], d[2 * (i * 4 + j) + 1]) > 1e-9) ok = false;
    if (!ok) continue;
    const th = [0, 1, 2, 3].map((k) => Math.atan2(d[2 * (k * 5) + 1], d[2 * (k * 5)]) / 2);
    // K1 = up P D^{-1} must be real orthogonal with det +1.
    const dinv = new Float64Array(32);
    th.forEach((t, k) => {
      dinv[2 * (k * 5)] = Math.cos(-t);
      dinv[2 * (k * 5) + 1] = Math.sin(-t);
    });
    let k1 = mul(up, mul(P, dinv));
    if (det4real(k1) < 0) {
      th[0] += Math.PI;
      dinv[0] = -dinv[0];
      dinv[1] = -dinv[1];
      k1 = mul(up, mul(P, dinv));
    }
    let pt = transpose(P);
    if (det4real(pt) < 0) {
      // Flip one eigenvector: P^T -> F P^T and D -> D F keeps the product (F = diag(-1,1,1,1)).
      for (let j = 0; j < 4; j++) {
        pt[2 * j] = -pt[2 * j];
        pt[2 * j + 1] = -pt[2 * j + 1];
      }
      for (let i = 0; i < 4; i++) {
        k1[2 * (i * 4)] = -k1[2 * (i * 4)];
        k1[2 * (i * 4) + 1] = -k1[2 * (i * 4) + 1];
      }
      pt = pt.slice();
    }
    const [a1, a0] = splitKron(mul(MAGIC, mul(k1, MAGIC_DG)));
    const [b1, b0] = splitKron(mul(MAGIC, mul(pt, MAGIC_DG)));
    // th_k = phi + a sx_k + b sy_k + c sz_k: the sign rows are orthogonal, so project.
    const coef = SIGNS.map((sg) => sg.reduce((acc, s, k) => acc + s * th[k], 0) / 4);
    return { a1, a0, b1, b0, a: coef[0], b: coef[1], c: coef[2] };
  }
  throw new Error('KAK decomposition did not converge');
}


const HALF_PI = Math.PI / 2;
const near0 = (x: number): boolean => Math.abs(x) < 1e-8;
/** x reduced to (-pi/4, pi/4] by multiples of pi/2, and the multiple. */
function reduce(x: number): [number, number] {
  const k = Math.round(x / HALF_PI);
  return [x - k * HALF_PI, k];
}

/** Operations (time order, on qubits q0 = index bit 0, q1 = bit 1) equal to u up to the returned phase. */
export function synth2q(u: Mat, q0: number, q1: number, generic = false): { ops: IrOp[]; phase: number; cx: number } {
  if (dim(u) !== 4) throw new Error('two-qubit synthesis needs a 4x4 matrix');
  const d = kak(u);
  const P = ['x', 'y', 'z'].map((n) => matrix1q(n, []) as Mat);
  const ops: IrOp[] = [];
  const one = (q: number, m: Mat): void => void ops.push({ k: 'u', q, m });
  // exp(i k pi/2 PP) = (i PP)^k is local: fold it into the "before" factors.
  let b0 = d.b0;
  let b1 = d.b1;
  const red = [d.a, d.b, d.c].map((x, i) => {
    const [r, k] = reduce(x);
    for (let j = 0; j < ((k % 4) + 4) % 4; j++) {
      b0 = mul(P[i], b0);
      b1 = mul(P[i], b1);
    }
    return r;
  });
  one(q0, b0);
  one(q1, b1);
  const [a, b, c] = red;
  // `generic` forces the three-CX form, which holds for any coordinates (a fallback when a
  // coordinate sits at the edge of the zero test).
  const zeros = generic ? 0 : red.filter(near0).length;
  const H = matrix1q('h', []) as Mat;
  if (zeros >= 1 && zeros < 3) {
    // Conjugating by W x W moves the two possibly non-zero axes onto XX and ZZ:
    // S maps X to Y (for (0, b, c)), Rx(pi/2) maps Z to Y (for (a, b, 0)).
    // With one non-zero coordinate, put it on XX (H maps X to Z) for the one-CX form.
    const [W, xa, za]: [Mat, number, number] =
      zeros === 2 && !near0(c) ? [H, c, 0]
      : zeros === 2 && !near0(b) ? [matrix1q('s', []) as Mat, b, 0]
      : near0(b) ? [identity(2), a, c]
      : near0(a) ? [matrix1q('s', []) as Mat, b, c]
      : [rx(HALF_PI), a, b];
    if (near0(za) && near0(Math.abs(xa) - Math.PI / 4)) {
      // exp(i xa XX) = (H x H) exp(i xa ZZ) (H x H), and exp(i xa ZZ) ~ (Rz(-2 xa) x Rz(-2 xa)) CZ.
      const WH = mul(W, H);
      const WHd = adjoint(WH);
      one(q0, WHd); one(q1, WHd);
      one(q1, H);
      ops.push({ k: 'cx', c: q0, t: q1 });
      one(q1, H);
      one(q0, rz(-2 * xa)); one(q1, rz(-2 * xa));
      one(q0, WH); one(q1, WH);
    } else {
      // exp(i(xa XX + za ZZ)) = CX(0,1) (Rx(-2 xa) x Rz(-2 za)) CX(0,1).
      const Wd = adjoint(W);
      one(q0, Wd); one(q1, Wd);
      ops.push({ k: 'cx', c: q0, t: q1 });
      one(q0, rx(-2 * xa)); one(q1, rz(-2 * za));
      ops.push({ k: 'cx', c: q0, t: q1 });
      one(q0, W); one(q1, W);
    }
  } else if (zeros === 0) {
    // Vatan and Williams: the canonical gate with three CX.
    one(q1, rz(-HALF_PI));
    ops.push({ k: 'cx', c: q0, t: q1 });
    one(q0, ry(-2 * b - HALF_PI));
    one(q1, rz(-2 * c - HALF_PI));
    ops.push({ k: 'cx', c: q1, t: q0 });
    one(q0, ry(2 * a + HALF_PI));
    ops.push({ k: 'cx', c: q0, t: q1 });
    one(q0, rz(HALF_PI));
  }
  one(q0, d.a0);
  one(q1, d.a1);
  const ph = phaseBetween(u, matrixOf(ops, q0, q1), 1e-7);
  if (ph === null) {
    if (!generic) return synth2q(u, q0, q1, true);
    throw new Error('two-qubit resynthesis failed its own check');
  }
  return { ops, phase: ph, cx: ops.filter((o) => o.k === 'cx').length };
}

/** The 4x4 matrix of ops on (q0, q1). */
export function matrixOf(ops: IrOp[], q0: number, q1: number): Mat {
  let m = identity(4);
  const I = identity(2);
  const X = matrix1q('x', []) as Mat;
  const P0 = fromPairs(2, [[1, 0], [0, 0], [0, 0], [0, 0]]);
  const P1 = fromPairs(2, [[0, 0], [0, 0], [0, 0], [1, 0]]);
  const plus = (x: Mat, y: Mat): Mat => x.map((v, i) => v + y[i]) as Mat;
  for (const op of ops) {
    let g: Mat;
    if (op.k === 'u') g = op.q === q0 ? kron(I, op.m) : kron(op.m, I);
    else if (op.k === 'cx') g = op.c === q0 ? plus(kron(I, P0), kron(X, P1)) : plus(kron(P0, I), kron(P1, X));
    else if (op.k === 'u2') g = op.q[0] === q0 ? op.m : swapped(op.m);
    else throw new Error('matrixOf: only unitary operations');
    m = mul(g, m);
  }
  return m;
}

/** The same gate with its two qubits exchanged. */
export function swapped(m: Mat): Mat {
  const perm = [0, 2, 1, 3];
  const out = new Float64Array(32);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
    out[2 * (perm[i] * 4 + perm[j])] = m[2 * (i * 4 + j)];
    out[2 * (perm[i] * 4 + perm[j]) + 1] = m[2 * (i * 4 + j) + 1];
  }
  return out;
}
