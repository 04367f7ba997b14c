/**
 * Turns an (original, optimized) pair into what the diagram checker multiplies: both gate
 * lists on the same compacted physical qubits, the original moved by the initial layout and
 * followed by the SWAPs that carry each logical qubit to its final position, and the
 * ancilla qubits (physical qubits no logical one starts on, or ends on) that sit in |0>.
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
  width: number;
  optimized: Gate[];
  original: Gate[];
  /** Global phase of the optimized circuit minus that of the original. */
  phase: number;
  /** Physical qubits (compacted) that start, and that end, as ancillas in |0>. */
  ancillaIn: number[];
  ancillaOut: number[];
}

export type Preparation = { ok: true; p: Prepared } | { ok: false; verdict: 'not_equivalent' | 'inconclusive'; reason: string };

const X = matrix1q('x', []) as Float64Array;

function gatesOf(ir: Ir, at: (q: number) => number): Gate[] {
  const out: Gate[] = [];
  for (const op of ir.ops) {
    if (op.k === 'u') out.push({ targets: [at(op.q)], controls: [], m: op.m });
    else if (op.k === 'cx') out.push({ targets: [at(op.t)], controls: [at(op.c)], m: X });
    else if (op.k === 'u2') out.push({ targets: op.q.map(at), controls: [], m: op.m });
    else if (op.op.kind !== 'barrier') throw new Error(`unexpected ${op.op.kind} in a unitary part`);
  }
  return out;
}

const swap = (a: number, b: number): Gate[] => [
  { targets: [b], controls: [a], m: X },
  { targets: [a], controls: [b], m: X },
  { targets: [b], controls: [a], m: X },
];

export function prepare(original: Circuit, optimized: Circuit, o: LayoutOptions): Preparation {
  const a = splitTerminalMeasures(original);
  const b = splitTerminalMeasures(optimized);
  if (!a || !b) return { ok: false, verdict: 'inconclusive', reason: 'mid-circuit measurement, reset or classical conditions (only unitary circuits with final measurements are checked)' };
  const n = original.numQubits;
  const init = [...Array(n).keys()].map((l) => o.initialLayout?.[l] ?? l);
  const fin = [...Array(n).keys()].map((l) => o.qubitMapping?.[l] ?? l);
  // Physical qubits nothing touches are dropped, so a circuit routed onto a large device
  // is checked on the qubits it uses.
  const used = new Set<number>([...init, ...fin]);
  for (const op of optimized.ops) for (const q of op.kind === 'measure' || op.kind === 'reset' ? [op.qubit] : op.qubits) used.add(q);
  const index = new Map([...used].sort((x, y) => x - y).map((p, i) => [p, i]));
  const at = (p: number): number => index.get(p) as number;
  const width = Math.max(index.size, 1);
  const start = init.map(at);
  const end = fin.map(at);
  const measuredA = a.measures.map((m) => `${end[m.qubit]}:${m.clbit}`).sort();
  const measuredB = b.measures.map((m) => `${at(m.qubit)}:${m.clbit}`).sort();
  if (measuredA.join() !== measuredB.join()) {
    return { ok: false, verdict: 'not_equivalent', reason: 'the final measurements do not read the same qubits into the same bits after the mapping' };
  }
  const irA = unroll(a.unitary, o.fallback);
  const irB = unroll(b.unitary, o.fallback);
  const orig = gatesOf(irA, (l) => start[l]);
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
  const all = [...Array(width).keys()];
  return {
    ok: true,
    p: {
      width,
      optimized: gatesOf(irB, at),
      original: orig,
      phase: irB.phase - irA.phase,
      ancillaIn: all.filter((p) => !start.includes(p)),
      ancillaOut: all.filter((p) => !end.includes(p)),
    },
  };
}
