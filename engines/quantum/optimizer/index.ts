/**
 * The circuit optimizer / transpiler: basis translation, layout and SABRE routing, and the
 * level 0-3 rewrite pipeline, with exact global-phase tracking.
 *
 * @example
 *   const { circuit, metrics, qubitMapping } = optimize(parseQasm(text), { level: 2, basisGates: ['cx', 'rz', 'sx', 'x'] });
 */
import type { Circuit } from '../circuit.ts';
import { inverseIr, qubitsOf, type Ir, type IrOp } from './ir.ts';
import { DEFAULT_BASIS, emit, parseBasis, type Basis } from './basis.ts';
import type { Mat } from './complex.ts';
import { synth1q } from './euler.ts';
import { allowsCx, couplingFrom } from './coupling.ts';
import { resynthesize2q, synthesizeUnitaries } from './blocks.ts';
import { layoutAndRoute } from './layout.ts';
import { counts, metrics, type Metrics } from './metrics.ts';
import { resynthesizePhaseRegions } from './phasepoly.ts';
import { hadamardCxToPhases } from './hcz.ts';
import { flipHadamardControls } from './hflip.ts';
import { flipHadamardNetworks } from './hnetwork.ts';
import { relativePhaseToffolis } from './relphase.ts';
import { pushPaulis } from './pauli.ts';
import { relocatePhasesToEnd } from './relocate.ts';
import { choosePolarities } from './polarity.ts';
import { chooseToffoliForms } from './toffoli.ts';
import { karatsubaMultipliers, productForms } from './karatsuba.ts';
import { simplify } from './simplify.ts';
import { unroll, type MatrixFallback } from './unroll.ts';

export type { Metrics } from './metrics.ts';
export { counts } from './metrics.ts';
export { DEFAULT_BASIS } from './basis.ts';

export interface OptimizeOptions {
  level?: 0 | 1 | 2 | 3;
  /** Target gate set (default u3, cx). */
  basisGates?: string[];
  /** Device edges [control, target]; both directions are allowed unless only one is listed and the basis is cx. */
  couplingMap?: Array<[number, number]>;
  /** Keep logical qubit i on physical qubit i at the start and at the end (SWAPs undo routing). */
  preserveLayout?: boolean;
  /** Seed for the layout search (results are deterministic for a given seed). */
  seed?: number;
  /** Matrices for gates the optimizer has no decomposition for (e.g. the engine's gate table). */
  matrixFallback?: MatrixFallback;
  /**
   * Level 3 also writes a multiplier over GF(2)[x] with Karatsuba's products (karatsuba.ts;
   * default true). False keeps its n^2 products as written: gate-level rewrites only, as the
   * published optimizers it is compared with work.
   */
  multipliers?: boolean;
}

export interface OptimizeResult {
  circuit: Circuit;
  metrics: Metrics;
  /** logical qubit -> physical qubit holding its state at the end */
  qubitMapping: Record<number, number>;
  /** logical qubit -> physical qubit at the start */
  initialLayout: Record<number, number>;
  swaps: number;
}

const toRecord = (a: number[]): Record<number, number> => Object.fromEntries(a.map((p, l) => [l, p]));

export function optimize(input: Circuit, options: OptimizeOptions = {}): OptimizeResult {
  const level = options.level ?? 2;
  if (![0, 1, 2, 3].includes(level)) throw new Error(`optimization level must be 0, 1, 2 or 3 (got ${level})`);
  const basis = parseBasis(options.basisGates?.length ? options.basisGates : DEFAULT_BASIS);
  // Very large circuits get the classic region synthesis only (its time grows slower).
  const large = input.ops.length > STRONG_MAX_OPS;
  if (level < 3) return pipeline(input, input, options, level, basis, { classic: large }) as OptimizeResult;
  // Level 3 also tries compute-uncompute Toffoli pairs as relative-phase Toffolis, the CCZ
  // decomposition search and H-conjugated CX as phases, and keeps the smallest result.
  const size = (r: OptimizeResult): [number, number] => {
    const k = counts(r.circuit);
    return [k.twoQubit, k.gates];
  };
  let best: OptimizeResult | null = null;
  const consider = (r: OptimizeResult | null): void => {
    if (!r) return;
    if (!best) {
      best = r;
      return;
    }
    const [a2, ag] = size(best);
    const [b2, bg] = size(r);
    if (b2 + bg < a2 + ag || (b2 + bg === a2 + ag && b2 < a2)) best = r;
  };
  // A multiplier over GF(2)[x] is also written with Karatsuba's products (karatsuba.ts). Past
  // STRONG_MAX_OPS that form alone is optimized: on gf2^32 and gf2^64 it ends 42 and 57 % below
  // the gate-level pipelines' best, which would take most of the time. Below, it is kept only
  // where it has no more gates and no more two-qubit gates than the gate-level best: it changes
  // the arithmetic, and on gf2^8 and gf2^10 it would trade 25 and 43 CX for 76 and 71 gates.
  const multipliers = options.multipliers === false ? [] : karatsubaMultipliers(input, productForms(!large));
  for (const source of multipliers) consider(pipeline(source, input, options, level, basis, { classic: source.ops.length > STRONG_MAX_OPS }));
  if (multipliers.length && large) return best as unknown as OptimizeResult;
  const rewritten: OptimizeResult | null = best;
  best = null;
  consider(pipeline(input, input, options, level, basis, { classic: large }));
  // Every variant with the classic region synthesis and with the full one (see SynthOptions):
  // a region made smaller can steer the later rewrites to a larger circuit, so neither
  // dominates.
  const modes: Array<{ classic: boolean }> = large ? [{ classic: true }] : [{ classic: false }, { classic: true }];
  const relative = relativePhaseToffolis(input);
  for (const mode of modes) {
    for (const source of relative ? [input, relative] : [input]) {
      const toffolis = source.ops.some((o) => o.kind === 'gate' && TOFFOLI_LIKE.has(o.name));
      if (source !== input || mode.classic !== large) consider(pipeline(source, input, options, level, basis, { ...mode }));
      if (toffolis) consider(pipeline(source, input, options, level, basis, { ...mode, searchToffoli: true }));
      consider(pipeline(source, input, options, level, basis, { ...mode, hcz: true }));
      if (toffolis) consider(pipeline(source, input, options, level, basis, { ...mode, searchToffoli: true, hcz: true }));
    }
  }
  const gateLevel = best as unknown as OptimizeResult;
  if (rewritten) {
    const [r2, rg] = size(rewritten);
    const [g2, gg] = size(gateLevel);
    if (r2 <= g2 && rg <= gg) return rewritten;
  }
  return gateLevel;
}

/** Largest input (operations) given the full region synthesis at level 3. */
const STRONG_MAX_OPS = 1000;

const TOFFOLI_LIKE = new Set(['ccx', 'ccz', 'toffoli', 'cswap', 'c3x', 'c4x', 'mcx']);

/** What one run of the pipeline does beyond the plain rewrites. */
interface Variant {
  /** The CCZ decomposition form search (toffoli.ts). */
  searchToffoli?: boolean;
  /** H-conjugated CX as phases (hcz.ts). */
  hcz?: boolean;
  /** The classic phase-region synthesis only (phasepoly.ts, SynthOptions). */
  classic?: boolean;
}

/**
 * One run of the rewrite pipeline on `source` (`input` itself or a rewriting of it); null
 * when the step asked for (Toffoli search, H-phase folding) finds nothing to do, since the
 * run would then repeat one without it.
 */
function pipeline(source: Circuit, input: Circuit, options: OptimizeOptions, level: number, basis: Basis, v: Variant): OptimizeResult | null {
  const { searchToffoli, hcz, classic } = v;
  const cost1q = (m: Mat): number => synth1q(m, basis.oneQ).gates.length;
  let ir = unroll(source, options.matrixFallback);
  synthesizeUnitaries(ir);
  if (searchToffoli) {
    const ran = chooseToffoliForms(ir, (w) => {
      simplify(w, 2);
      return w.ops.length;
    });
    if (!ran) return null;
  }
  if (level >= 2) choosePolarities(ir);
  simplify(ir, level);
  if (level >= 3) {
    resynthesize2q(ir, cost1q);
    simplify(ir, level);
    if (hcz) {
      if (!hadamardCxToPhases(ir)) return null;
      simplify(ir, level);
      resynthesize2q(ir, cost1q);
      simplify(ir, level);
    }
    phaseRegions(ir, level, classic);
    ir = relocated(ir, level, cost1q, classic);
    ir = pauliPushed(ir, level, basis, classic);
    ir = hadamardsFlipped(ir, level, basis, classic);
  }
  const identity = [...Array(input.numQubits).keys()];
  let initial = identity;
  let final = identity;
  let swaps = 0;
  let allowed: ((c: number, t: number) => boolean) | undefined;
  let qregs = input.qregs;
  if (options.couplingMap) {
    const cm = couplingFrom(options.couplingMap);
    // Final measurements wait for the end of routing: measured early, a qubit would still be
    // swapped around as a dead passenger, and the output's measurements would no longer be
    // final (so no statevector check could cover it). They are put back on the physical
    // qubits where routing leaves their logical qubits.
    const terminal = finalMeasures(ir);
    if (terminal.length) ir = { ...ir, ops: ir.ops.filter((op) => !terminal.includes(op)) };
    const routed = layoutAndRoute(ir, cm, {
      preserveLayout: options.preserveLayout ?? false,
      iterations: level === 0 ? 0 : level >= 3 ? 3 : 1,
      trials: level >= 3 ? 8 : level === 2 ? 2 : 1,
      seed: options.seed ?? 11,
    });
    ir = routed.ir;
    ({ initial, final, swaps } = routed);
    for (const m of terminal) {
      if (m.k !== 'op' || m.op.kind !== 'measure') continue;
      const p = final[m.op.qubit]!;
      ir.ops.push({ k: 'op', qs: [p], op: { ...m.op, qubit: p } });
    }
    allowed = (c, t) => allowsCx(cm, c, t);
    qregs = cm.size ? [{ name: 'q', size: cm.size, offset: 0 }] : [];
    simplify(ir, level);
    if (level >= 3) {
      resynthesize2q(ir, cost1q);
      simplify(ir, level);
    }
  }
  const circuit = emit(ir, basis, { fuse: level >= 1, allowed, qregs, cregs: input.cregs, numClbits: input.numClbits });
  return { circuit, metrics: metrics(input, circuit), qubitMapping: toRecord(final), initialLayout: toRecord(initial), swaps };
}

/**
 * The IR with the rotations that the final wires can carry moved to the end (relocate.ts),
 * then those that the initial wires can carry moved to the start, each kept when that ends
 * smaller after the rewrites: all of them, or only those that need no CX there.
 */
function relocated(ir: Ir, level: number, cost1q: (m: Mat) => number, classic?: boolean): Ir {
  const size = (x: Ir): number => {
    let cx = 0;
    for (const op of x.ops) if (op.k === 'cx') cx++;
    return x.ops.length + cx;
  };
  let best = ir;
  // Then the same on the inverse of the better one: the rotations that the initial wires can
  // carry go to the start (other parities, and other CX pairs that then cancel).
  for (const backwards of [false, true]) {
    const from = backwards ? inverseIr(best) : ir;
    if (!from) break;
    for (const singleWireOnly of [false, true]) {
      const trial: Ir = { n: from.n, ops: from.ops.slice(), phase: from.phase };
      if (!relocatePhasesToEnd(trial, { singleWireOnly, classic })) continue;
      simplify(trial, level);
      resynthesize2q(trial, cost1q);
      simplify(trial, level);
      phaseRegions(trial, level, classic);
      const result = backwards ? inverseIr(trial) : trial;
      if (result && size(result) < size(best)) best = result;
    }
  }
  return best;
}

/**
 * The IR with its X gates carried to the end, or to the start, as a Pauli frame (pauli.ts),
 * when that emits fewer gates.
 */
function pauliPushed(ir: Ir, level: number, basis: Basis, classic?: boolean): Ir {
  const size = (x: Ir): number => {
    const k = counts(emit(x, basis, { fuse: true, qregs: [], cregs: [], numClbits: 0 }));
    return k.gates + k.twoQubit;
  };
  let best = ir;
  let bestSize = size(ir);
  for (const backwards of [false, true]) {
    const trial = backwards ? inverseIr(ir) : { n: ir.n, ops: ir.ops.slice(), phase: ir.phase };
    if (!trial || !pushPaulis(trial)) continue;
    simplify(trial, level);
    phaseRegions(trial, level, classic);
    const result = backwards ? inverseIr(trial) : trial;
    if (!result) continue;
    const s = size(result);
    if (s < bestSize) {
      best = result;
      bestSize = s;
    }
  }
  return best;
}

/**
 * The IR with H gates moved from CX controls to their targets where they cancel there
 * (hflip.ts), the rewrites run after each sweep and the region synthesis after the last;
 * kept when the emitted circuit has no more gates and no more two-qubit gates, and fewer of
 * one.
 */
function hadamardsFlipped(ir: Ir, level: number, basis: Basis, classic?: boolean): Ir {
  const size = (x: Ir): [number, number] => {
    const k = counts(emit(x, basis, { fuse: true, qregs: [], cregs: [], numClbits: 0 }));
    return [k.gates, k.twoQubit];
  };
  let best = ir;
  let [g0, t0] = size(ir);
  // Strict sweeps only, or a first sweep that also takes the sites keeping the H count (their
  // wire then joins the phase regions around it, which may merge rotations or share CX).
  for (const slack of [-1, 0]) {
    const trial: Ir = { n: ir.n, ops: ir.ops.slice(), phase: ir.phase };
    let flipped = 0;
    for (let round = 0; round < 8; round++) {
      const k = flipHadamardControls(trial, round === 0 ? slack : -1) + flipHadamardNetworks(trial);
      if (!k) break;
      flipped += k;
      // Cancels the H pairs the sweep made, which can open new sites.
      simplify(trial, level);
    }
    if (!flipped) continue;
    phaseRegions(trial, level, classic);
    const [g1, t1] = size(trial);
    if (g1 <= g0 && t1 <= t0 && (g1 < g0 || t1 < t0)) {
      best = trial;
      [g0, t0] = [g1, t1];
    }
  }
  return best;
}

/**
 * Phase-region resynthesis with the regions grown from the front and, on the inverse
 * circuit, from the back (a different cut of the same stretches), until neither helps.
 */
function phaseRegions(ir: Ir, level: number, classic?: boolean): void {
  for (let round = 0; round < 4; round++) {
    let changed = false;
    if (resynthesizePhaseRegions(ir, { classic })) {
      simplify(ir, level);
      changed = true;
    }
    if (classic) return;
    const inv = inverseIr(ir);
    if (inv && resynthesizePhaseRegions(inv, { classic })) {
      simplify(inv, level);
      const back = inverseIr(inv) as Ir;
      ir.ops = back.ops;
      ir.phase = back.phase;
      changed = true;
    }
    if (!changed) return;
  }
}

/** The measurements after which nothing acts on their qubit or reads or writes their bit. */
function finalMeasures(ir: Ir): IrOp[] {
  const out: IrOp[] = [];
  const laterQubits = new Set<number>();
  const laterBits = new Set<number>();
  for (let i = ir.ops.length - 1; i >= 0; i--) {
    const op = ir.ops[i]!;
    if (op.k === 'op' && op.op.kind === 'measure' && !op.op.condition && !laterQubits.has(op.op.qubit) && !laterBits.has(op.op.clbit)) {
      out.push(op);
      laterBits.add(op.op.clbit);
      continue;
    }
    if (op.k === 'op' && op.op.kind === 'barrier') continue;
    for (const q of qubitsOf(op)) laterQubits.add(q);
    const cond = op.k === 'op' ? (op.op.kind !== 'barrier' ? op.op.condition : undefined) : op.cond;
    for (const b of cond?.clbits ?? []) laterBits.add(b);
    if (op.k === 'op' && op.op.kind === 'measure') laterBits.add(op.op.clbit);
  }
  return out.reverse();
}
