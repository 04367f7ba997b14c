/**
 * Equivalence of an optimized circuit with its original, proven on decision diagrams by the
 * alternating scheme: start from the ancilla projector P_in (the identity when no qubit is
 * an ancilla), multiply the optimized gates in from the left and the inverse original gates
 * (moved by the layouts) in from the right, interleaved in proportion to their counts so
 * the product stays close to the identity; the circuits agree on every input with the
 * ancillas in |0> exactly when the result is e^{i phi} P_out.
 *
 * @example
 *   const r = optimize(c, { level: 3 });
 *   checkEquivalence(c, r.circuit, { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping }).verdict; // 'equivalent'
 */
import type { Circuit } from '../circuit.ts';
import { BudgetExceeded, ONE, ZERO } from './complex-table.ts';
import { Dd, nodeOf, weightOf } from './dd.ts';
import { GateBuilder, type Gate } from './gates.ts';
import { Ops } from './ops.ts';
import { prepare, type LayoutOptions } from './prepare.ts';

/** Most qubits one pre-multiplied block of gates may touch. */
const BLOCK_QUBITS = 3;

export interface DdCheckOptions extends LayoutOptions {
  /** Compare up to a global phase (OpenQASM 2 text cannot carry one). Default true. */
  ignoreGlobalPhase?: boolean;
  /** Largest diagram (live nodes) before giving up as 'inconclusive'. Default 2e6. */
  maxNodes?: number;
  /** Largest entry of |U_opt P_in V^dagger - e^{i phi} P_out| accepted as equal. Default 1e-8. */
  tolerance?: number;
  /** Wall-clock limit before giving up as 'inconclusive'. Default 120 s. */
  timeLimitMs?: number;
}

export interface DdCheckResult {
  verdict: 'equivalent' | 'not_equivalent' | 'inconclusive';
  reason?: string;
  /** Largest diagram seen (nodes, terminal included). */
  maxNodes: number;
  ms: number;
  /** Largest entry of the difference from e^{i phi} P_out, when the product was completed. */
  deviation?: number;
}

/** The diagonal projector with the listed qubits' row and column bits fixed to 0. */
function projector(dd: Dd, ancillas: number[]): number {
  const anc = new Set(ancillas);
  let e = ONE;
  for (let v = 0; v < dd.n; v++) e = dd.makeNode(v, e, ZERO, ZERO, anc.has(v) ? ZERO : e);
  return e;
}

/** Entry [0, 0] of the matrix as [re, im]. */
function corner(dd: Dd, e: number): [number, number] {
  let re = 1;
  let im = 0;
  for (let c = e; ; c = dd.child(nodeOf(c), 0)) {
    const w = weightOf(c);
    if (w === ZERO) return [0, 0];
    const wr = dd.ct.re[w];
    const wi = dd.ct.im[w];
    [re, im] = [re * wr - im * wi, re * wi + im * wr];
    if (nodeOf(c) === 0) return [re, im];
  }
}

export function checkEquivalence(original: Circuit, optimized: Circuit, options: DdCheckOptions = {}): DdCheckResult {
  const t0 = performance.now();
  const budget = options.maxNodes ?? 2e6;
  const limitMs = options.timeLimitMs ?? 120_000;
  const done = (verdict: DdCheckResult['verdict'], maxNodes: number, reason?: string, deviation?: number): DdCheckResult => ({
    verdict, maxNodes, ms: performance.now() - t0, ...(reason ? { reason } : {}), ...(deviation !== undefined ? { deviation } : {}),
  });
  const prep = prepare(original, optimized, options);
  if (!prep.ok) return done(prep.verdict, 0, prep.reason);
  const p = prep.p;
  const dd = new Dd(p.width, 1e-12, 2 * budget);
  const ops = new Ops(dd);
  const gates = new GateBuilder(dd);
  let maxNodes = 0;
  try {
    let m = ops.scale(projector(dd, p.ancillaIn), dd.ct.lookup(Math.cos(p.phase), Math.sin(p.phase)));
    let target = projector(dd, p.ancillaOut);
    const L = p.optimized.length;
    const R = p.original.length;
    // Consecutive gates on a few qubits are multiplied together first: the block's diagram is
    // small, while each multiplication into the product costs about the product's size.
    const block = (list: Gate[], from: number, adjoint: boolean): [number, number] => {
      const qs = new Set<number>();
      let b = dd.identity();
      let k = from;
      for (; k < list.length; k++) {
        const g = list[k];
        const all = [...g.targets, ...g.controls];
        const grown = all.filter((q) => !qs.has(q)).length + qs.size;
        if (k > from && grown > BLOCK_QUBITS) break;
        all.forEach((q) => qs.add(q));
        const e = gates.build(g, adjoint);
        b = adjoint ? ops.mul(b, e) : ops.mul(e, b);
      }
      return [b, k];
    };
    let gcAt = Math.min(250_000, budget);
    let i = 0;
    let j = 0;
    for (let step = 0; i < L || j < R; step++) {
      if (j >= R || (i < L && i * R <= j * L)) {
        const [b, next] = block(p.optimized, i, false);
        m = ops.mul(b, m);
        i = next;
      } else {
        const [b, next] = block(p.original, j, true);
        m = ops.mul(m, b);
        j = next;
      }
      if (step % 64 === 63) {
        const size = dd.size(m);
        maxNodes = Math.max(maxNodes, size);
        if (size > budget) return done('inconclusive', maxNodes, `the diagram passed ${budget} nodes after ${i} + ${j} of ${L} + ${R} gates`);
        if (performance.now() - t0 > limitMs) return done('inconclusive', maxNodes, `time limit of ${limitMs} ms reached after ${i} + ${j} of ${L} + ${R} gates`);
      }
      if (dd.count > gcAt) {
        [m, target] = dd.collect([m, target]);
        ops.clear();
        gates.clear();
        gcAt = Math.max(gcAt, Math.min(2 * dd.count, budget));
      }
    }
    maxNodes = Math.max(maxNodes, dd.size(m));
    let c = ONE;
    if (options.ignoreGlobalPhase ?? true) {
      const [re, im] = corner(dd, m);
      const r = Math.hypot(re, im);
      if (r > 1e-6) c = dd.ct.lookup(re / r, im / r);
    }
    const minusC = dd.ct.lookup(-dd.ct.re[c], -dd.ct.im[c]);
    const deviation = ops.maxAbs(ops.add(m, ops.scale(target, minusC)));
    const tol = options.tolerance ?? 1e-8;
    if (deviation <= tol) return done('equivalent', maxNodes, undefined, deviation);
    return done('not_equivalent', maxNodes, `the product differs from ${p.ancillaIn.length ? 'the ancilla projector' : 'the identity'} by up to ${deviation.toExponential(2)}`, deviation);
  } catch (err) {
    if (err instanceof BudgetExceeded) return done('inconclusive', Math.max(maxNodes, dd.count), err.message);
    throw err;
  }
}
