/** Circuit size figures: depth (barriers excluded), gate counts and the reductions between two circuits. */
import type { Circuit } from '../circuit.ts';

export interface Counts {
  depth: number;
  gates: number;
  twoQubit: number;
  byName: Record<string, number>;
}

/** Depth counts measure and reset and follows classical wires of measurements and conditions. */
export function counts(c: Circuit): Counts {
  const qd = new Array<number>(c.numQubits).fill(0);
  const cd = new Array<number>(c.numClbits).fill(0);
  let gates = 0;
  let twoQubit = 0;
  const byName: Record<string, number> = {};
  for (const op of c.ops) {
    if (op.kind === 'barrier') continue;
    const qs = op.kind === 'measure' || op.kind === 'reset' ? [op.qubit] : op.qubits;
    const cs = [...(op.kind === 'measure' ? [op.clbit] : []), ...(op.condition?.clbits ?? [])];
    let d = 0;
    for (const q of qs) d = Math.max(d, qd[q]);
    for (const b of cs) d = Math.max(d, cd[b]);
    d += 1;
    for (const q of qs) qd[q] = d;
    for (const b of cs) cd[b] = d;
    if (op.kind === 'gate' || op.kind === 'unitary') {
      gates++;
      if (qs.length >= 2) twoQubit++;
      const name = op.kind === 'gate' ? op.name : 'unitary';
      byName[name] = (byName[name] ?? 0) + 1;
    }
  }
  return { depth: Math.max(0, ...qd, ...cd), gates, twoQubit, byName };
}

export interface Metrics {
  original_depth: number;
  optimized_depth: number;
  original_gates: number;
  optimized_gates: number;
  depth_reduction_percent: number;
  gate_reduction_percent: number;
}

function pct(before: number, after: number): number {
  return before === 0 ? 0 : Math.round(((before - after) / before) * 10000) / 100;
}

export function metrics(before: Circuit, after: Circuit): Metrics {
  const a = counts(before);
  const b = counts(after);
  return {
    original_depth: a.depth,
    optimized_depth: b.depth,
    original_gates: a.gates,
    optimized_gates: b.gates,
    depth_reduction_percent: pct(a.depth, b.depth),
    gate_reduction_percent: pct(a.gates, b.gates),
  };
}
