/**
 * Equivalence of an optimized circuit with its original on path sums (pathsum.ts): the
 * optimized gates, then the original's (moved by the layouts) inverted from the last back,
 * make V^dagger U_opt, which must reduce to e^{i phi} |x> on every input with the ancillas in
 * |0>. Polynomial in practice for Clifford+T arithmetic circuits of any width (no diagram
 * doubles with the wires), where the decision diagrams of equivalence.ts can blow up.
 *
 * @example
 *   checkPathSum(c, r.circuit, { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping }).verdict; // 'equivalent'
 */
import type { Circuit } from '../circuit.ts';
import type { Mat } from '../optimizer/complex.ts';
import type { Gate } from './gates.ts';
import { isConstantPhase, PathSum } from './pathsum.ts';
import { prepare, type LayoutOptions } from './prepare.ts';

export interface PathSumCheckOptions extends LayoutOptions {
  /** Compare up to a global phase (OpenQASM 2 text cannot carry one). Default true. */
  ignoreGlobalPhase?: boolean;
}

export interface PathSumCheckResult {
  verdict: 'equivalent' | 'not_equivalent' | 'inconclusive';
  reason?: string;
  /** Most phase terms held at once. */
  maxTerms: number;
  ms: number;
}

const TOL = 1e-9;
const arg = (m: Mat, i: number): number => Math.atan2(m[2 * i + 1]!, m[2 * i]!);
const abs = (m: Mat, i: number): number => Math.hypot(m[2 * i]!, m[2 * i + 1]!);

/**
 * Applies a single-qubit unitary as diagonal, X then diagonal, or diag H diag (entries all of
 * modulus 1/sqrt 2), else as diag H diag H diag (one more path variable).
 */
function apply1q(ps: PathSum, q: number, m: Mat): void {
  const [a00, a01, a10] = [abs(m, 0), abs(m, 1), abs(m, 2)];
  if (a01 < TOL && a10 < TOL) return ps.diagonal(q, arg(m, 0), arg(m, 3));
  if (a00 < TOL) {
    // [[0, p], [q, 0]] = diag(p, q) X.
    ps.x(q);
    return ps.diagonal(q, arg(m, 1), arg(m, 2));
  }
  if (Math.abs(a00 - Math.SQRT1_2) < TOL && Math.abs(a01 - Math.SQRT1_2) < TOL) {
    // e^{ig} diag(1, e^{ia}) H diag(1, e^{ic}).
    const g = arg(m, 0);
    ps.diagonal(q, 0, arg(m, 1) - g);
    ps.hadamard(q);
    ps.diagonal(q, g, arg(m, 2));
    return;
  }
  // e^{iG} diag(1, e^{ia}) Rx(b) diag(1, e^{ic}), Rx(b) = e^{-ib/2} H diag(1, e^{ib}) H.
  const b = 2 * Math.atan2(a10, a00);
  const G = arg(m, 0);
  const c = arg(m, 1) - G + Math.PI / 2;
  const a = arg(m, 2) - G + Math.PI / 2;
  ps.diagonal(q, 0, c);
  ps.hadamard(q);
  ps.diagonal(q, 0, b);
  ps.hadamard(q);
  ps.diagonal(q, G - b / 2, G - b / 2 + a);
}

const adjoint1q = (m: Mat): Mat => Float64Array.from([m[0]!, -m[1]!, m[4]!, -m[5]!, m[2]!, -m[3]!, m[6]!, -m[7]!]);

/** One gate into the path sum; false for a gate it cannot take (controlled non-X, two-qubit). */
function applyGate(ps: PathSum, g: Gate, inverse: boolean): boolean {
  if (g.targets.length !== 1) return false;
  const t = g.targets[0]!;
  if (g.controls.length === 0) {
    apply1q(ps, t, inverse ? adjoint1q(g.m) : g.m);
    return true;
  }
  const m = g.m;
  const isX = g.controls.length === 1 && abs(m, 0) < TOL && abs(m, 3) < TOL && Math.abs(m[2]! - 1) < TOL && Math.abs(m[4]! - 1) < TOL;
  if (!isX) return false;
  ps.cx(g.controls[0]!, t);
  return true;
}

export function checkPathSum(original: Circuit, optimized: Circuit, options: PathSumCheckOptions = {}): PathSumCheckResult {
  const t0 = performance.now();
  let maxTerms = 0;
  const done = (verdict: PathSumCheckResult['verdict'], reason?: string): PathSumCheckResult => ({
    verdict, maxTerms, ms: performance.now() - t0, ...(reason ? { reason } : {}),
  });
  const prep = prepare(original, optimized, options);
  if (!prep.ok) return done(prep.verdict, prep.reason);
  const p = prep.p;
  if (p.deferred) return done('inconclusive', 'mid-circuit measurements are not taken by path sums');
  const ancillas = new Set(p.ancillas);
  const ps = new PathSum([...Array(p.width).keys()].map((q) => !ancillas.has(q)));
  ps.global += p.phase;
  const steps: Array<[Gate, boolean]> = [...p.optimized.map((g): [Gate, boolean] => [g, false]), ...[...p.original].reverse().map((g): [Gate, boolean] => [g, true])];
  for (let i = 0; i < steps.length; i++) {
    const [g, inverse] = steps[i]!;
    if (!applyGate(ps, g, inverse)) return done('inconclusive', `a gate on ${g.targets.length} targets with ${g.controls.length} controls is not taken by path sums`);
    if ((i & 255) === 255) maxTerms = Math.max(maxTerms, ps.termCount);
  }
  maxTerms = Math.max(maxTerms, ps.termCount);
  ps.finish();
  if (ps.pathVariables) return done('inconclusive', `${ps.pathVariables} path variables could not be summed out`);
  // No path variable left: V^dagger U_opt is a phase times a permutation of the basis.
  for (let q = 0; q < p.width; q++) {
    const w = ps.wires[q]!;
    const want = ancillas.has(q) ? [] : [q];
    if (w.c !== 0 || w.vars.length !== want.length || w.vars.some((v, i) => v !== want[i])) {
      return done('not_equivalent', `qubit ${q} ends as ${w.vars.map((v) => `x${v}`).join(' + ') || '0'}${w.c ? ' + 1' : ''}, not as it started`);
    }
  }
  if (Math.abs(ps.log2scale) > TOL) return done('inconclusive', `the amplitudes are scaled by 2^${ps.log2scale}`);
  const terms = ps.phaseTerms();
  if (!(options.ignoreGlobalPhase ?? true)) terms.push({ vars: [], coef: ps.global });
  const gp = terms.find((t) => t.vars.length === 0);
  if (terms.length === 0 || (terms.length === 1 && gp && Math.abs(Math.sin(gp.coef / 2)) < TOL)) return done('equivalent');
  const constant = isConstantPhase(terms.filter((t) => t.vars.length > 0));
  if (constant === null) return done('inconclusive', `${terms.length} phase terms are left whose sum could not be decided`);
  if (!constant) return done('not_equivalent', 'the product is a non-constant phase');
  if (gp && Math.abs(Math.sin(gp.coef / 2)) > TOL) return done('not_equivalent', 'the global phases differ');
  return done('equivalent');
}
