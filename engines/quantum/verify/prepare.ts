/**
 * Turns an (original, optimized) pair into what the diagram checker multiplies: both gate
 * lists on the same compacted physical qubits, the original moved by the initial layout and
 * followed by the SWAPs that carry each logical qubit to its final position, and the
 * levels that start in |0>: ancilla qubits and, when measurements are not all final, the
 * lines of deferred measurement (one per write of a classical bit, one per reset).
 */
import type { Circuit } from '../circuit.ts';
import { splitTerminalMeasures } from '../optimizer/equivalence.ts';
import { matrix1q } from '../optimizer/gates1q.ts';
import type { Ir } from '../optimizer/ir.ts';
import { unroll, type MatrixFallback } from '../optimizer/unroll.ts';
import type { Gate } from './gates.ts';

export interface LayoutOptions {
  /** logical qubit -> physical qubit at the start of the optimized circuit */
  initialLayout?: Record<number, number>;
  /** logical qubit -> physical qubit holding it at the end */
  qubitMapping?: Record<number, number>;
  fallback?: MatrixFallback;
}

export interface Prepared {
  /** Diagram levels: the compacted physical qubits, then one line per classical bit when measurements are deferred. */
  width: number;
  optimized: Gate[];
  original: Gate[];
  /** Global phase of the optimized circuit minus that of the original. */
  phase: number;
  /** Levels that start in |0>: ancilla qubits (no logical qubit starts there) and classical-bit lines. */
  ancillas: number[];
  /** Measurements became CX onto classical-bit lines (so a mismatch proves nothing). */
  deferred: boolean;
}

export type Preparation = { ok: true; p: Prepared } | { ok: false; verdict: 'not_equivalent' | 'inconclusive'; reason: string };

const X = matrix1q('x', []) as Float64Array;
const cx = (c: number, t: number): Gate => ({ targets: [t], controls: [c], m: X });
const flip = (q: number): Gate => ({ targets: [q], controls: [], m: X });

/**
 * Where deferred measurements and resets put their qubits: one line per write of a classical
 * bit (write k of bit b goes to line (b, k); line (b, 0) is the bit before any write, 0) and
 * one garbage line per reset, in program order. Both circuits number their lines the same way,
 * so equal circuits leave equal contents on every line; the lines start in |0>.
 */
export interface Lines {
  /** The line that write number `k` (from 1) of classical bit `b` goes to; k = 0: the unwritten bit. */
  bit(b: number, k: number): number;
  /** The garbage line that reset number `r` (from 0) swaps its qubit into. */
  reset(r: number): number;
}

/**
 * The gates of a lowered circuit on diagram levels. With `lines` (deferred measurement), a
 * measurement copies its qubit onto a fresh line of its classical bit, a reset swaps its qubit
 * with a fresh garbage line in |0>, and a condition becomes controls on the bits' current
 * lines (a 0 bit is a control between two X).
 */
function gatesOf(ir: Ir, at: (q: number) => number, lines?: Lines): Gate[] {
  const out: Gate[] = [];
  const writes = new Map<number, number>();
  let resets = 0;
  const current = (b: number): number => lines!.bit(b, writes.get(b) ?? 0);
  for (const op of ir.ops) {
    if (op.k === 'op') {
      const o = op.op;
      if (o.kind === 'barrier') continue;
      if (!lines || ('condition' in o && o.condition)) throw new Error(`a ${'condition' in o && o.condition ? 'conditioned ' : ''}${o.kind} cannot be deferred`);
      if (o.kind === 'measure') {
        const k = (writes.get(o.clbit) ?? 0) + 1;
        writes.set(o.clbit, k);
        out.push(cx(at(o.qubit), lines.bit(o.clbit, k)));
      } else if (o.kind === 'reset') out.push(...swap(at(o.qubit), lines.reset(resets++)));
      else throw new Error(`a ${o.kind} cannot be deferred`);
      continue;
    }
    const g: Gate = op.k === 'u' ? { targets: [at(op.q)], controls: [], m: op.m }
      : op.k === 'cx' ? cx(at(op.c), at(op.t))
      : { targets: op.q.map(at), controls: [], m: op.m };
    if (!op.cond || !lines) {
      out.push(g);
      continue;
    }
    const cond = op.cond;
    const zeros = cond.clbits.filter((_, i) => !(cond.value & (1 << i))).map(current);
    out.push(...zeros.map(flip), { ...g, m: canonicalPhase(g.m), controls: [...g.controls, ...cond.clbits.map(current)] }, ...zeros.map(flip));
  }
  return out;
}

/** How many times each classical bit is written, and how many resets there are. */
function tally(c: Circuit): { writes: Map<number, number>; resets: number } {
  const writes = new Map<number, number>();
  let resets = 0;
  for (const op of c.ops) {
    if (op.kind === 'measure') writes.set(op.clbit, (writes.get(op.clbit) ?? 0) + 1);
    if (op.kind === 'reset') resets++;
  }
  return { writes, resets };
}

/** Lines for both circuits, from `first` on: enough for the larger count of each kind. */
function allocateLines(a: Circuit, b: Circuit, first: number): { lines: Lines; count: number } {
  const ta = tally(a);
  const tb = tally(b);
  const bits = Math.max(a.numClbits, b.numClbits);
  const base: number[] = [];
  let next = first;
  for (let bit = 0; bit < bits; bit++) {
    base.push(next);
    next += 1 + Math.max(ta.writes.get(bit) ?? 0, tb.writes.get(bit) ?? 0);
  }
  const resetBase = next;
  next += Math.max(ta.resets, tb.resets);
  return { lines: { bit: (bit, k) => base[bit]! + k, reset: (r) => resetBase + r }, count: next - first };
}

/**
 * A conditioned gate's matrix with its global phase fixed (its first largest entry made real
 * and positive). Whether a classically conditioned gate runs is decided by a measured bit, so
 * its global phase is a global phase of that run and unobservable; compilers drop it (u1 under
 * a condition becomes rz). On the deferred-measurement lines it would be a relative phase, so
 * both circuits get the same convention: physically nothing changes, and `if (c) u1(λ)` and
 * `if (c) rz(λ)` become one gate.
 */
function canonicalPhase(m: Float64Array): Float64Array {
  let best = 0;
  for (let i = 0; i < m.length; i += 2) best = Math.max(best, Math.hypot(m[i]!, m[i + 1]!));
  let at = 0;
  while (at < m.length && Math.hypot(m[at]!, m[at + 1]!) < best - 1e-12) at += 2;
  const phi = Math.atan2(m[at + 1]!, m[at]!);
  if (phi === 0) return m;
  const c = Math.cos(phi);
  const s = -Math.sin(phi);
  const out = new Float64Array(m.length);
  for (let i = 0; i < m.length; i += 2) {
    out[i] = m[i]! * c - m[i + 1]! * s;
    out[i + 1] = m[i]! * s + m[i + 1]! * c;
  }
  return out;
}

const swap = (a: number, b: number): Gate[] => [cx(a, b), cx(b, a), cx(a, b)];

export function prepare(original: Circuit, optimized: Circuit, o: LayoutOptions): Preparation {
  const a = splitTerminalMeasures(original);
  const b = splitTerminalMeasures(optimized);
  const deferred = !a || !b;
  const n = original.numQubits;
  const init = [...Array(n).keys()].map((l) => o.initialLayout?.[l] ?? l);
  const fin = [...Array(n).keys()].map((l) => o.qubitMapping?.[l] ?? l);
  // Physical qubits nothing touches are dropped, so a circuit routed onto a large device
  // is checked on the qubits it uses.
  const used = new Set<number>([...init, ...fin]);
  for (const op of optimized.ops) for (const q of op.kind === 'measure' || op.kind === 'reset' ? [op.qubit] : op.qubits) used.add(q);
  const index = new Map([...used].sort((x, y) => x - y).map((p, i) => [p, i]));
  const at = (p: number): number => index.get(p) as number;
  const physical = Math.max(index.size, 1);
  const start = init.map(at);
  const end = fin.map(at);
  if (!deferred) {
    const measuredA = a.measures.map((m) => `${end[m.qubit]}:${m.clbit}`).sort();
    const measuredB = b.measures.map((m) => `${at(m.qubit)}:${m.clbit}`).sort();
    if (measuredA.join() !== measuredB.join()) {
      return { ok: false, verdict: 'not_equivalent', reason: 'the final measurements do not read the same qubits into the same bits after the mapping' };
    }
  }
  const deferral = deferred ? allocateLines(original, optimized, physical) : null;
  const irA = unroll(deferred ? original : a.unitary, o.fallback);
  const irB = unroll(deferred ? optimized : b.unitary, o.fallback);
  let orig: Gate[];
  let opt: Gate[];
  try {
    orig = gatesOf(irA, (l) => start[l], deferral?.lines);
    opt = gatesOf(irB, at, deferral?.lines);
  } catch (err) {
    return { ok: false, verdict: 'inconclusive', reason: (err as Error).message };
  }
  // SWAPs carry the content of start[l] to end[l]; ancillas end wherever they are pushed.
  const pos = [...start];
  const holder = new Map(start.map((p, l) => [p, l]));
  for (let l = 0; l < n; l++) {
    const from = pos[l];
    const to = end[l];
    if (from === to) continue;
    orig.push(...swap(from, to));
    const other = holder.get(to);
    if (other !== undefined) {
      pos[other] = from;
      holder.set(from, other);
    } else holder.delete(from);
    pos[l] = to;
    holder.set(to, l);
  }
  const width = physical + (deferral?.count ?? 0);
  return {
    ok: true,
    p: {
      width,
      optimized: opt,
      original: orig,
      phase: irB.phase - irA.phase,
      ancillas: [...Array(width).keys()].filter((q) => q >= physical || !start.includes(q)),
      deferred,
    },
  };
}
