/**
 * A sparse statevector (basis index -> amplitude) for wide circuits that stay close to
 * classical, such as arithmetic built from Toffolis. It checks an optimized circuit on random
 * computational-basis inputs: evidence on those inputs, not a proof for every input.
 */
import type { Circuit } from '../circuit.ts';
import type { IrOp } from './ir.ts';
import { rng } from './sim.ts';
import { unroll, type MatrixFallback } from './unroll.ts';

type Sparse = Map<bigint, [number, number]>;

function add(s: Sparse, k: bigint, re: number, im: number): void {
  const v = s.get(k);
  if (v) {
    v[0] += re;
    v[1] += im;
  } else s.set(k, [re, im]);
}

function apply(s: Sparse, op: IrOp, limit: number): Sparse {
  if (op.k === 'cx') {
    const out: Sparse = new Map();
    const cb = 1n << BigInt(op.c);
    const tb = 1n << BigInt(op.t);
    for (const [k, v] of s) out.set(k & cb ? k ^ tb : k, v);
    return out;
  }
  if (op.k === 'u') {
    const m = op.m;
    const bit = 1n << BigInt(op.q);
    const out: Sparse = new Map();
    for (const [k, [re, im]] of s) {
      const one = (k & bit) !== 0n;
      const k0 = k & ~bit;
      const k1 = k | bit;
      // column `one` of m: amplitude flows to row 0 and row 1
      const c = one ? 1 : 0;
      const r0 = m[2 * c], i0 = m[2 * c + 1], r1 = m[2 * (2 + c)], i1 = m[2 * (2 + c) + 1];
      if (r0 !== 0 || i0 !== 0) add(out, k0, r0 * re - i0 * im, r0 * im + i0 * re);
      if (r1 !== 0 || i1 !== 0) add(out, k1, r1 * re - i1 * im, r1 * im + i1 * re);
    }
    for (const [k, [re, im]] of out) if (re * re + im * im < 1e-28) out.delete(k);
    if (out.size > limit) throw new Error('superposition too wide for the sparse check');
    return out;
  }
  if (op.k === 'op' && op.op.kind === 'barrier') return s;
  throw new Error(`the sparse check runs unitary circuits only (found ${op.k === 'op' ? op.op.kind : 'a 2q unitary'})`);
}

function runSparse(ops: IrOp[], input: bigint, phase: number, limit: number): Sparse {
  let s: Sparse = new Map([[input, [Math.cos(phase), Math.sin(phase)] as [number, number]]]);
  for (const op of ops) s = apply(s, op, limit);
  return s;
}

export interface SparseCheckOptions {
  initialLayout?: Record<number, number>;
  qubitMapping?: Record<number, number>;
  inputs?: number;
  seed?: number;
  /** Largest number of basis states held at once before giving up. */
  limit?: number;
  fallback?: MatrixFallback;
}

/** The largest amplitude difference over the sampled basis inputs, or null when too wide to run. */
export function sparseCheck(original: Circuit, optimized: Circuit, o: SparseCheckOptions = {}): number | null {
  const n = original.numQubits;
  const a = unroll(original, o.fallback);
  const b = unroll(optimized, o.fallback);
  const r = rng(o.seed ?? 1);
  const limit = o.limit ?? 1 << 14;
  const place = (k: bigint, layout?: Record<number, number>): bigint => {
    let out = 0n;
    for (let l = 0; l < n; l++) if ((k >> BigInt(l)) & 1n) out |= 1n << BigInt(layout?.[l] ?? l);
    return out;
  };
  let worst = 0;
  try {
    for (let t = 0; t < (o.inputs ?? 4); t++) {
      let x = 0n;
      for (let q = 0; q < n; q++) if (r() < 0.5) x |= 1n << BigInt(q);
      const sa = runSparse(a.ops, x, a.phase, limit);
      const sb = runSparse(b.ops, place(x, o.initialLayout), b.phase, limit);
      const expected: Sparse = new Map();
      for (const [k, v] of sa) expected.set(place(k, o.qubitMapping), v);
      for (const key of new Set([...expected.keys(), ...sb.keys()])) {
        const [ar, ai] = expected.get(key) ?? [0, 0];
        const [br, bi] = sb.get(key) ?? [0, 0];
        worst = Math.max(worst, Math.hypot(ar - br, ai - bi));
      }
    }
  } catch {
    return null;
  }
  return worst;
}
