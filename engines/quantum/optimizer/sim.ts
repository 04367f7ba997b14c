/** A small statevector simulator of the working form, used to check that rewrites keep the operation. */
import type { Ir, IrOp } from './ir.ts';

export type State = Float64Array; // interleaved re/im, qubit 0 least significant

function apply1(s: State, q: number, m: Float64Array): void {
  const n = s.length / 2;
  const bit = 1 << q;
  for (let i = 0; i < n; i++) {
    if (i & bit) continue;
    const j = i | bit;
    const ar = s[2 * i], ai = s[2 * i + 1], br = s[2 * j], bi = s[2 * j + 1];
    s[2 * i] = m[0] * ar - m[1] * ai + m[2] * br - m[3] * bi;
    s[2 * i + 1] = m[0] * ai + m[1] * ar + m[2] * bi + m[3] * br;
    s[2 * j] = m[4] * ar - m[5] * ai + m[6] * br - m[7] * bi;
    s[2 * j + 1] = m[4] * ai + m[5] * ar + m[6] * bi + m[7] * br;
  }
}

function applyCx(s: State, c: number, t: number): void {
  const n = s.length / 2;
  const cb = 1 << c;
  const tb = 1 << t;
  for (let i = 0; i < n; i++) {
    if (!(i & cb) || i & tb) continue;
    const j = i | tb;
    const r = s[2 * i], im = s[2 * i + 1];
    s[2 * i] = s[2 * j];
    s[2 * i + 1] = s[2 * j + 1];
    s[2 * j] = r;
    s[2 * j + 1] = im;
  }
}

function apply2(s: State, q0: number, q1: number, m: Float64Array): void {
  const n = s.length / 2;
  const b0 = 1 << q0;
  const b1 = 1 << q1;
  const idx = [0, 0, 0, 0];
  const vr = [0, 0, 0, 0];
  const vi = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) {
    if (i & b0 || i & b1) continue;
    idx[0] = i; idx[1] = i | b0; idx[2] = i | b1; idx[3] = i | b0 | b1;
    for (let k = 0; k < 4; k++) { vr[k] = s[2 * idx[k]]; vi[k] = s[2 * idx[k] + 1]; }
    for (let r = 0; r < 4; r++) {
      let re = 0, im = 0;
      for (let k = 0; k < 4; k++) {
        const mr = m[2 * (r * 4 + k)], mi = m[2 * (r * 4 + k) + 1];
        re += mr * vr[k] - mi * vi[k];
        im += mr * vi[k] + mi * vr[k];
      }
      s[2 * idx[r]] = re;
      s[2 * idx[r] + 1] = im;
    }
  }
}

export function applyOp(s: State, op: IrOp): void {
  if (op.k === 'u') apply1(s, op.q, op.m);
  else if (op.k === 'cx') applyCx(s, op.c, op.t);
  else if (op.k === 'u2') apply2(s, op.q[0], op.q[1], op.m);
  else if (op.op.kind !== 'barrier') throw new Error(`cannot simulate ${op.op.kind} as a unitary`);
}

/** Runs the unitary part of `ir` on a copy of `input`, global phase included. */
export function run(ir: Ir, input: State): State {
  const s = Float64Array.from(input);
  for (const op of ir.ops) applyOp(s, op);
  const c = Math.cos(ir.phase), sn = Math.sin(ir.phase);
  for (let i = 0; i < s.length; i += 2) {
    const r = s[i];
    s[i] = r * c - s[i + 1] * sn;
    s[i + 1] = r * sn + s[i + 1] * c;
  }
  return s;
}

/**
 * One random qubit state a|0> + b|1> = (cos θ/2 e^{iγ}, sin θ/2 e^{i(γ+φ)}), as [a, b] pairs
 * (three draws; random product states are built from these, qubit 0 first).
 */
export function randomQubitState(rand: () => number): { a: [number, number]; b: [number, number] } {
  const th = rand() * Math.PI, ph = rand() * 2 * Math.PI, g = rand() * 2 * Math.PI;
  return {
    a: [Math.cos(th / 2) * Math.cos(g), Math.cos(th / 2) * Math.sin(g)],
    b: [Math.sin(th / 2) * Math.cos(g + ph), Math.sin(th / 2) * Math.sin(g + ph)],
  };
}

/** A seeded random product state on n qubits (every amplitude non-zero almost surely). */
export function randomProductState(n: number, rand: () => number): State {
  let s = new Float64Array([1, 0]);
  for (let q = 0; q < n; q++) {
    const { a, b } = randomQubitState(rand);
    const next = new Float64Array(s.length * 2);
    const half = s.length / 2;
    for (let i = 0; i < half; i++) {
      next[2 * i] = s[2 * i] * a[0] - s[2 * i + 1] * a[1];
      next[2 * i + 1] = s[2 * i] * a[1] + s[2 * i + 1] * a[0];
      next[2 * (i + half)] = s[2 * i] * b[0] - s[2 * i + 1] * b[1];
      next[2 * (i + half) + 1] = s[2 * i] * b[1] + s[2 * i + 1] * b[0];
    }
    s = next;
  }
  return s;
}

/** <a|b> */
export function inner(a: State, b: State): [number, number] {
  let re = 0, im = 0;
  for (let i = 0; i < a.length; i += 2) {
    re += a[i] * b[i] + a[i + 1] * b[i + 1];
    im += a[i] * b[i + 1] - a[i + 1] * b[i];
  }
  return [re, im];
}

/** The seeded generator of the optimizer's checks. */
export { mulberry32 as rng } from '../sampling.ts';
