/**
 * Pauli frame pushing (level 3): X gates are taken out of the circuit and carried forward as
 * a frame Z^z X^x per wire, exactly: through CX (X on the control spreads to the target, Z on
 * the target to the control), through Clifford single-qubit gates (H turns X into Z), into
 * diagonal gates (a pending Z is absorbed, a pending X conjugates the rotation: rz(t) X =
 * X rz(-t) up to phase), and into any other single-qubit gate as one fused matrix. What is
 * left reaches the end, or a gate it cannot pass, as at most one gate per wire; a Z left at
 * the end merges into an earlier rotation on the same parity (merge.ts). X gates of
 * compute-uncompute pairs (negated Toffoli controls) meet in the frame and vanish.
 */
import { adjoint, mul, phaseBetween, type Mat } from './complex.ts';
import { isDiagonal, isXLike } from './classify.ts';
import { matrix1q } from './gates1q.ts';
import { isFree, qubitsOf, type Ir, type IrOp } from './ir.ts';

const I = matrix1q('id', []) as Mat;
const X = matrix1q('x', []) as Mat;
const Z = matrix1q('z', []) as Mat;
const ZX = mul(Z, X);
/** Z^z X^x for (z, x) = index >> 1, index & 1. */
const PAULI = [I, X, Z, ZX];

/** Pushes the X gates of `ir` to the end as a Pauli frame; returns how many were taken out. */
export function pushPaulis(ir: Ir): number {
  const zs = new Uint8Array(ir.n);
  const xs = new Uint8Array(ir.n);
  const out: IrOp[] = [];
  let taken = 0;
  const frame = (q: number): Mat => PAULI[2 * zs[q] + xs[q]];
  const flush = (q: number): void => {
    if (zs[q] || xs[q]) out.push({ k: 'u', q, m: frame(q) });
    zs[q] = 0;
    xs[q] = 0;
  };
  for (const op of ir.ops) {
    if (!isFree(op) || op.k === 'u2') {
      for (const q of qubitsOf(op)) flush(q);
      out.push(op);
      continue;
    }
    if (op.k === 'cx') {
      xs[op.t] ^= xs[op.c];
      zs[op.c] ^= zs[op.t];
      out.push(op);
      continue;
    }
    const q = op.q;
    if (isXLike(op.m)) {
      // u P = e^{ia} X Z^z X^x = e^{ia} (-1)^z Z^z X^(x+1).
      ir.phase += (phaseBetween(op.m, X) as number) + (zs[q] ? Math.PI : 0);
      xs[q] ^= 1;
      taken++;
      continue;
    }
    if (!zs[q] && !xs[q]) {
      out.push(op);
      continue;
    }
    const P = frame(q);
    if (isDiagonal(op.m)) {
      // u Z^z X^x = X^x (X^x u Z^z X^x): the Z is absorbed, the X passes.
      const xm = xs[q] ? X : I;
      const zm = zs[q] ? Z : I;
      out.push({ ...op, m: mul(xm, mul(op.m, mul(zm, xm))) });
      zs[q] = 0;
      continue;
    }
    // A Clifford gate maps the frame to another Pauli: u P = (u P u^dagger) u.
    const Q = mul(op.m, mul(P, adjoint(op.m)));
    let passed = false;
    for (let k = 0; k < 4 && !passed; k++) {
      const ph = phaseBetween(Q, PAULI[k], 1e-9);
      if (ph === null) continue;
      ir.phase += ph;
      zs[q] = k >> 1;
      xs[q] = k & 1;
      out.push(op);
      passed = true;
    }
    if (passed) continue;
    out.push({ ...op, m: mul(op.m, P) });
    zs[q] = 0;
    xs[q] = 0;
  }
  for (let q = 0; q < ir.n; q++) flush(q);
  ir.ops = out;
  return taken;
}
