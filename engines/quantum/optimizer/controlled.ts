/** Exact multi-controlled single-qubit gates over {1q, CX}, global phase included. */
import { adjoint, det2, fromPairs, mul, phaseBetween, type Mat } from './complex.ts';
import { isDiagonal } from './classify.ts';
import { zyz } from './euler.ts';
import { matrix1q, phase, ry, rz } from './gates1q.ts';
import type { IrOp } from './ir.ts';

/** Collects IR operations and the global phase they add. */
export interface Builder {
  ops: IrOp[];
  phase: number;
}

const X = matrix1q('x', []) as Mat;
const Z = matrix1q('z', []) as Mat;
const T = matrix1q('t', []) as Mat;
const TDG = matrix1q('tdg', []) as Mat;
const H = matrix1q('h', []) as Mat;

function u(b: Builder, q: number, m: Mat): void {
  b.ops.push({ k: 'u', q, m });
}
function cx(b: Builder, c: number, t: number): void {
  b.ops.push({ k: 'cx', c, t });
}

let groupId = 0;

/**
 * CCZ on (a, b, c) with 6 CX and 7 T/T-dagger, no global phase. Its gates share a group id:
 * CCZ is its own inverse, so flipping every T of the group is another exact decomposition.
 */
function ccz(b: Builder, a: number, bb: number, c: number): void {
  const start = b.ops.length;
  cx(b, bb, c); u(b, c, TDG); cx(b, a, c); u(b, c, T); cx(b, bb, c); u(b, c, TDG); cx(b, a, c);
  u(b, bb, T); u(b, c, T); cx(b, a, bb); u(b, a, T); u(b, bb, TDG); cx(b, a, bb);
  const grp = ++groupId;
  for (let i = start; i < b.ops.length; i++) {
    const op = b.ops[i];
    if (op.k === 'u' || op.k === 'cx') op.grp = grp;
  }
}

/** A square root of a 2x2 unitary: (U + sqrt(det) I) / sqrt(tr U + 2 sqrt(det)). */
export function sqrt2(m: Mat): Mat {
  const [dr, di] = det2(m);
  const dAng = Math.atan2(di, dr) / 2;
  for (const shift of [0, Math.PI]) {
    const sr = Math.cos(dAng + shift);
    const si = Math.sin(dAng + shift);
    const tr = m[0] + m[6] + 2 * sr;
    const ti = m[1] + m[7] + 2 * si;
    const mag = Math.hypot(tr, ti);
    if (mag < 1e-6) continue;
    const nr = Math.sqrt(mag);
    const na = Math.atan2(ti, tr) / 2;
    // divide by nr e^{i na}
    const cr = Math.cos(-na) / nr;
    const ci = Math.sin(-na) / nr;
    const s = fromPairs(2, [[m[0] + sr, m[1] + si], [m[2], m[3]], [m[4], m[5]], [m[6] + sr, m[7] + si]]);
    const out = new Float64Array(8);
    for (let i = 0; i < 8; i += 2) {
      out[i] = s[i] * cr - s[i + 1] * ci;
      out[i + 1] = s[i] * ci + s[i + 1] * cr;
    }
    return out;
  }
  throw new Error('no square root found');
}

/**
 * exp(i lambda x_1 x_2 ... x_m) on `qs` as a phase polynomial: the product of bits is
 * sum over non-empty S of (-1)^(|S|-1) parity(S) / 2^(m-1), and each parity is built on one
 * wire by a Gray-code walk of CX (2^m - 2 CX in all, no ancilla).
 */
export function mcPhase(b: Builder, qs: number[], lambda: number): void {
  const m = qs.length;
  if (m === 0) {
    b.phase += lambda;
    return;
  }
  const unit = lambda / 2 ** (m - 1);
  for (let top = m - 1; top >= 0; top--) {
    // Terms whose highest qubit is qs[top], built on that wire.
    const t = qs[top];
    const ctrls = qs.slice(0, top);
    const term = (subset: number): void => {
      let size = 1;
      for (let s = subset; s; s &= s - 1) size++;
      u(b, t, phase(size % 2 ? unit : -unit));
    };
    term(0);
    const count = 1 << ctrls.length;
    let gray = 0;
    for (let i = 1; i < count; i++) {
      const bit = Math.log2(i & -i);
      cx(b, ctrls[bit], t);
      gray ^= 1 << bit;
      term(gray);
    }
    if (ctrls.length) cx(b, ctrls[ctrls.length - 1], t);
  }
}

/** Applies U to `target` when every qubit of `controls` is 1; exact, including phase. */
export function controlled1q(b: Builder, controls: number[], target: number, m: Mat): void {
  const k = controls.length;
  if (k === 0) {
    u(b, target, m);
    return;
  }
  if (k === 1) {
    const c = controls[0];
    if (phaseBetween(m, X, 1e-12) === 0) {
      cx(b, c, target);
      return;
    }
    // U = e^{i a} A X B X C with ABC = I (Barenco et al. lemma 5.1).
    const { theta, phi, lambda, alpha } = zyz(m);
    const A = mul(rz(phi), ry(theta / 2));
    const B = mul(ry(-theta / 2), rz(-(lambda + phi) / 2));
    const C = rz((lambda - phi) / 2);
    u(b, target, C);
    cx(b, c, target);
    u(b, target, B);
    cx(b, c, target);
    u(b, target, A);
    if (Math.abs(alpha) > 1e-15) u(b, c, phase(alpha));
    return;
  }
  if (k === 2 && phaseBetween(m, Z, 1e-12) === 0) {
    ccz(b, controls[0], controls[1], target);
    return;
  }
  if (k === 2 && phaseBetween(m, X, 1e-12) === 0) {
    u(b, target, H);
    ccz(b, controls[0], controls[1], target);
    u(b, target, H);
    return;
  }
  if (k >= 3 && phaseBetween(m, X, 1e-12) === 0) {
    u(b, target, H);
    mcPhase(b, [...controls, target], Math.PI);
    u(b, target, H);
    return;
  }
  if (k >= 3 && isDiagonal(m)) {
    // diag(e^{ia}, e^{ib}) = e^{ia} P(b - a): a phase on the controls, then on all qubits.
    const a = Math.atan2(m[1], m[0]);
    const d = Math.atan2(m[7], m[6]);
    mcPhase(b, controls, a);
    mcPhase(b, [...controls, target], d - a);
    return;
  }
  // Lemma 7.8 of Barenco et al.: C^k U = C^{k-1}V . C^{k-1}X(ck) . C(ck)V^dagger . C^{k-1}X(ck) . C(ck)V.
  const v = sqrt2(m);
  const rest = controls.slice(0, -1);
  const last = controls[k - 1];
  controlled1q(b, [last], target, v);
  controlled1q(b, rest, last, X);
  controlled1q(b, [last], target, adjoint(v));
  controlled1q(b, rest, last, X);
  controlled1q(b, rest, target, v);
}

/** A global phase applied only when every control is 1 (a plain phase when there are none). */
export function controlledPhase(b: Builder, controls: number[], ph: number): void {
  if (Math.abs(ph) < 1e-15) return;
  if (controls.length === 0) b.phase += ph;
  else controlled1q(b, controls.slice(0, -1), controls[controls.length - 1], phase(ph));
}
