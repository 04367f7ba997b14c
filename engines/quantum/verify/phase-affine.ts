/**
 * Equivalence of circuits that are phase-affine up to Hadamards on a fixed set of wires: both
 * are H_W P H_W, with P made of CX, X and diagonal gates whose angles are multiples of pi/4.
 * P sends |x> to w^f(x) |A x + b> (w = e^{i pi/4}); two such circuits are equal up to a global
 * phase exactly when their affine maps are equal and their phase functions differ by a
 * constant. The Nam suite's multipliers are of this kind (a Toffoli onto c is a CCZ between H
 * on c), and so is what the optimizer makes of them; path sums stall on them when the two
 * circuits write the same cubic phase with different parities (Karatsuba's products against
 * the schoolbook's), and decision diagrams grow with the width. This check does not grow with
 * either beyond the size of the phase functions.
 *
 * W is read off the circuits: each wire is in W when its first rotation (a diagonal gate that
 * is not Z) comes after an odd number of H. Between H, a gate is taken in the frame its wires
 * are in: a CX between two wires in the H frame is the reversed CX, a CX from a plain wire onto
 * one in the H frame is a CZ, X in the H frame is Z and Z is X; anything else (a rotation in
 * the H frame, a CX from an H-frame wire onto a plain one, other gates) leaves the check
 * inconclusive, as do ancillas and deferred measurements.
 *
 * The phase function f = sum_t k_t [p_t(x)] (mod 8, p_t parities) is compared on its unique
 * multilinear form over Z_8 (phase-form.ts).
 *
 * @example
 *   checkPhaseAffine(c, r.circuit, { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping }).verdict; // 'equivalent'
 */
import type { Circuit } from '../circuit.ts';
import type { Gate } from './gates.ts';
import { xorInto } from '../optimizer/gf2.ts';
import { isConstantPhaseForm, type ParityBits } from './phase-form.ts';
import { prepare, type LayoutOptions } from './prepare.ts';

export interface PhaseAffineCheckOptions extends LayoutOptions {
  /** Compare up to a global phase (OpenQASM 2 text cannot carry one). Default true. */
  ignoreGlobalPhase?: boolean;
}

export interface PhaseAffineCheckResult {
  verdict: 'equivalent' | 'not_equivalent' | 'inconclusive';
  reason?: string;
  /** Phase terms of both circuits together. */
  terms: number;
  ms: number;
}

const TOL = 1e-9;
const EIGHTH = Math.PI / 4;

/** A parity of the input variables plus a constant (bit `width`). */
type Parity = ParityBits;

class Inconclusive extends Error {}

/** How a lowered gate acts, once its frame is known. */
type Kind = { k: 'h' } | { k: 'x' } | { k: 'phase'; alpha: number; beta: number } | { k: 'cx'; c: number; t: number };

function classify(g: Gate): Kind {
  if (g.targets.length !== 1) throw new Inconclusive(`a gate on ${g.targets.length} targets`);
  const m = g.m;
  const t = g.targets[0]!;
  const abs = (i: number): number => Math.hypot(m[2 * i]!, m[2 * i + 1]!);
  const arg = (i: number): number => Math.atan2(m[2 * i + 1]!, m[2 * i]!);
  const isX = abs(0) < TOL && abs(3) < TOL && Math.abs(m[2]! - 1) < TOL && Math.abs(m[4]! - 1) < TOL;
  if (g.controls.length === 1 && isX) return { k: 'cx', c: g.controls[0]!, t };
  if (g.controls.length) throw new Inconclusive('a controlled gate other than CX');
  if (abs(1) < TOL && abs(2) < TOL) return { k: 'phase', alpha: arg(0), beta: arg(3) };
  if (isX) return { k: 'x' };
  const h = Math.SQRT1_2;
  if (Math.abs(m[0]! - h) < TOL && Math.abs(m[2]! - h) < TOL && Math.abs(m[4]! - h) < TOL && Math.abs(m[6]! + h) < TOL && [1, 3, 5, 7].every((i) => Math.abs(m[i]!) < TOL)) {
    return { k: 'h' };
  }
  throw new Inconclusive('a single-qubit gate that is not H, X or diagonal');
}

interface Lowered {
  kinds: Kind[];
  wires: number[];
}

function lower(gates: Gate[]): Lowered {
  return { kinds: gates.map(classify), wires: gates.map((g) => g.targets[0]!) };
}

/** W from one circuit: per wire, the parity of H before its first rotation; -1 where it has none. */
function framesFrom(l: Lowered, width: number): Int8Array {
  const w = new Int8Array(width).fill(-1);
  const hs = new Uint8Array(width);
  l.kinds.forEach((g, i) => {
    const q = l.wires[i]!;
    if (g.k === 'h') hs[q] ^= 1;
    else if (g.k === 'phase' && w[q] === -1 && !isPauliZ(g)) w[q] = hs[q]!;
  });
  return w;
}

function isPauliZ(g: { alpha: number; beta: number }): boolean {
  return Math.abs(Math.cos(g.beta - g.alpha) + 1) < TOL || Math.abs(Math.cos(g.beta - g.alpha) - 1) < TOL;
}

/** The affine map and phase terms of H_W C H_W. */
interface PhaseAffine {
  wires: Parity[];
  /** Phase terms: parity (constant folded into k and the global phase) and k mod 8. */
  terms: Array<{ p: Parity; k: number }>;
  global: number;
}

function phaseAffine(l: Lowered, start: Uint8Array, width: number, words: number): PhaseAffine {
  // Bit `width` of a parity is its constant.
  const wires: Parity[] = Array.from({ length: width }, (_, i) => {
    const v = new Uint32Array(words);
    v[i >>> 5] |= 1 << (i & 31);
    return v;
  });
  const frame = start.slice();
  const terms: PhaseAffine['terms'] = [];
  let global = 0;
  const constant = (p: Parity): number => (p[width >>> 5]! >>> (width & 31)) & 1;
  const addTerm = (p: Parity, k: number): void => {
    k = ((k % 8) + 8) % 8;
    if (!k) return;
    if (constant(p)) {
      // k [p + 1] = k - k [p].
      global += k * EIGHTH;
      const q = p.slice();
      q[width >>> 5] ^= 1 << (width & 31);
      terms.push({ p: q, k: (8 - k) % 8 });
    } else terms.push({ p: p.slice(), k });
  };
  const xor = (a: Parity, b: Parity): Parity => {
    const out = a.slice();
    xorInto(out, b);
    return out;
  };
  const flipConstant = (q: number): void => void (wires[q]![width >>> 5] ^= 1 << (width & 31));
  l.kinds.forEach((g, i) => {
    const q = l.wires[i]!;
    switch (g.k) {
      case 'h':
        frame[q] ^= 1;
        return;
      case 'x':
        if (frame[q]) addTerm(wires[q]!, 4);
        else flipConstant(q);
        return;
      case 'phase': {
        const k = (g.beta - g.alpha) / EIGHTH;
        if (Math.abs(k - Math.round(k)) > 1e-7) throw new Inconclusive('a rotation that is not a multiple of pi/4');
        if (frame[q]) {
          if (!isPauliZ(g)) throw new Inconclusive('a rotation on a wire in the H frame');
          global += g.alpha;
          if (Math.round(k) % 8 !== 0) flipConstant(q); // Z in the H frame is X
          return;
        }
        global += g.alpha;
        addTerm(wires[q]!, Math.round(k));
        return;
      }
      case 'cx': {
        const { c, t } = g;
        if (!frame[c] && !frame[t]) wires[t] = xor(wires[t]!, wires[c]!);
        else if (frame[c] && frame[t]) wires[c] = xor(wires[c]!, wires[t]!);
        else if (!frame[c] && frame[t]) {
          // CZ: pi p q = pi/2 (p + q - (p + q mod 2)).
          addTerm(wires[c]!, 2);
          addTerm(wires[t]!, 2);
          addTerm(xor(wires[c]!, wires[t]!), -2);
        } else throw new Inconclusive('a CX from a wire in the H frame onto a plain one');
      }
    }
  });
  for (let q = 0; q < width; q++) if (frame[q] !== start[q]) throw new Inconclusive(`qubit ${q} ends in another frame than it starts in`);
  return { wires, terms, global };
}

export function checkPhaseAffine(original: Circuit, optimized: Circuit, options: PhaseAffineCheckOptions = {}): PhaseAffineCheckResult {
  const t0 = performance.now();
  let terms = 0;
  const done = (verdict: PhaseAffineCheckResult['verdict'], reason?: string): PhaseAffineCheckResult => ({
    verdict, terms, ms: performance.now() - t0, ...(reason ? { reason } : {}),
  });
  const prep = prepare(original, optimized, options);
  if (!prep.ok) return done(prep.verdict, prep.reason);
  const p = prep.p;
  if (p.deferred) return done('inconclusive', 'mid-circuit measurements are not taken by this check');
  if (p.ancillas.length) return done('inconclusive', 'ancilla qubits are not taken by this check');
  try {
    const width = p.width;
    const words = Math.ceil((width + 1) / 32);
    const a = lower(p.optimized);
    const b = lower(p.original);
    const fa = framesFrom(a, width);
    const fb = framesFrom(b, width);
    const start = new Uint8Array(width);
    for (let q = 0; q < width; q++) {
      if (fa[q] !== -1 && fb[q] !== -1 && fa[q] !== fb[q]) return done('inconclusive', `qubit ${q} has its rotations in another frame in each circuit`);
      start[q] = Math.max(fa[q]!, fb[q]!, 0);
    }
    const pa = phaseAffine(a, start, width, words);
    const pb = phaseAffine(b, start, width, words);
    for (let q = 0; q < width; q++) {
      if (pa.wires[q]!.some((x, i) => x !== pb.wires[q]![i])) return done('not_equivalent', `qubit ${q} ends with another affine function of the inputs`);
    }
    const all = [...pa.terms, ...pb.terms.map((t) => ({ p: t.p, k: (8 - t.k) % 8 }))];
    terms = all.length;
    if (!isConstantPhaseForm(all, width)) return done('not_equivalent', 'the phase functions differ by a non-constant function');
    if (!(options.ignoreGlobalPhase ?? true)) {
      // The constant of the difference: f_a(0) - f_b(0) is 0 (no term holds the constant), so only the tracked phases differ.
      const d = pa.global - pb.global + p.phase;
      if (Math.abs(Math.sin(d / 2)) > TOL) return done('not_equivalent', 'the global phases differ');
    }
    return done('equivalent');
  } catch (err) {
    if (err instanceof Inconclusive) return done('inconclusive', err.message);
    throw err;
  }
}

