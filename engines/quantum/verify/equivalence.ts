/**
 * Equivalence of an optimized circuit with its original, proven on decision diagrams by the
 * alternating scheme: starting from the identity, the optimized gates are multiplied in on
 * one side and the inverse original gates (moved by the layouts) on the other, from the last
 * gate back, interleaved in proportion to their counts so that the product stays close to
 * the identity. With P the projector putting the ancillas (and deferred-measurement lines)
 * in |0>, the circuits agree on every such input exactly when P V^dagger U_opt P = e^{i phi} P.
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
  /** Largest entry of |P V^dagger U_opt P - e^{i phi} P| accepted as equal. Default 1e-8. */
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
  /** Largest entry of the difference from e^{i phi} P, when the product was completed. */
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
  // Garbage may pile up to twice the live nodes before a collection; past three budgets, give up.
  const dd = new Dd(p.width, 1e-12, 3 * budget);
  const ops = new Ops(dd);
  const gates = new GateBuilder(dd);
  let maxNodes = 0;
  try {
    // Both circuits are taken from their last gate back, so the product grows outward from
    // the outputs and ends as V^dagger U_opt, whose inputs meet the ancilla projector.
    let m = ops.scale(dd.identity(), dd.ct.lookup(Math.cos(p.phase), Math.sin(p.phase)));
    const optimized = [...p.optimized].reverse();
    const original = [...p.original].reverse();
    const L = optimized.length;
    const R = original.length;
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
        b = adjoint ? ops.mul(e, b) : ops.mul(b, e);
      }
      return [b, k];
    };
    let gcAt = Math.min(250_000, budget);
    let i = 0;
    let j = 0;
    for (let step = 0; i < L || j < R; step++) {
      if (j >= R || (i < L && i * R <= j * L)) {
        const [b, next] = block(optimized, i, false);
        m = ops.mul(m, b);
        i = next;
      } else {
        const [b, next] = block(original, j, true);
        m = ops.mul(b, m);
        j = next;
      }
      if (step % 64 === 63) {
        const size = dd.size(m);
        maxNodes = Math.max(maxNodes, size);
        if (size > budget) return done('inconclusive', maxNodes, `the diagram passed ${budget} nodes after ${i} + ${j} of ${L} + ${R} gates`);
        if (performance.now() - t0 > limitMs) return done('inconclusive', maxNodes, `time limit of ${limitMs} ms reached after ${i} + ${j} of ${L} + ${R} gates`);
      }
      if (dd.count > gcAt) {
        [m] = dd.collect([m]);
        ops.clear();
        gates.clear();
        if (dd.count > budget) return done('inconclusive', Math.max(maxNodes, dd.count), `more than ${budget} live nodes after ${i} + ${j} of ${L} + ${R} gates`);
        gcAt = Math.max(gcAt, 2 * dd.count);
      }
    }
    maxNodes = Math.max(maxNodes, dd.size(m));
    const proj = projector(dd, p.ancillas);
    m = ops.mul(proj, ops.mul(m, proj));
    let c = ONE;
    if (options.ignoreGlobalPhase ?? true) {
      const [re, im] = corner(dd, m);
      const r = Math.hypot(re, im);
      if (r > 1e-6) c = dd.ct.lookup(re / r, im / r);
    }
    const minusC = dd.ct.lookup(-dd.ct.re[c], -dd.ct.im[c]);
    const deviation = ops.maxAbs(ops.add(m, ops.scale(proj, minusC)));
    const tol = options.tolerance ?? 1e-8;
    if (deviation <= tol) return done('equivalent', maxNodes, undefined, deviation);
    const how = `the product differs from ${p.ancillas.length ? 'the ancilla projector' : 'the identity'} by up to ${deviation.toExponential(2)}`;
    // With deferred measurements equality is sufficient, not necessary: a phase under a
    // condition, for one, is invisible in the circuit but not in its purification.
    if (p.deferred) return done('inconclusive', maxNodes, `${how}, with mid-circuit measurements deferred`, deviation);
    return done('not_equivalent', maxNodes, how, deviation);
  } catch (err) {
    if (err instanceof BudgetExceeded) return done('inconclusive', Math.max(maxNodes, dd.count), err.message);
    throw err;
  }
}
