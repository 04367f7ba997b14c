/** SABRE routing (Li, Ding, Xie 2019): inserts SWAPs so that every two-qubit gate acts on coupled qubits. */
import type { Coupling } from './coupling.ts';
import { qubitsOf, type IrOp } from './ir.ts';

const EXTENDED_SIZE = 20;
const EXTENDED_WEIGHT = 0.5;
const DECAY = 0.001;

export interface Routed {
  /** Operations on physical qubits (SWAPs as `swap` markers, see `RoutedOp`). */
  ops: RoutedOp[];
  /** logical -> physical after the last operation */
  final: number[];
  swaps: number;
}

/** A routed operation: the original (by index) on physical qubits, or a SWAP of two physical qubits. */
export type RoutedOp = { k: 'op'; index: number; phys: number[] } | { k: 'swap'; a: number; b: number };

/**
 * Routes `ops` (on logical qubits 0..n-1) from the initial layout `init` (logical -> physical,
 * all N physical qubits included: positions n.. hold idle ancillas).
 */
/** Classical bits an operation reads or writes, as wire ids below -1. */
function clbitWires(op: IrOp): number[] {
  const bits = op.k === 'op' ? [...(op.op.kind === 'measure' ? [op.op.clbit] : []), ...(op.op.kind !== 'barrier' ? (op.op.condition?.clbits ?? []) : [])] : (op.cond?.clbits ?? []);
  return bits.map((b) => -2 - b);
}

export function route(ops: IrOp[], init: number[], cm: Coupling, rand: () => number, emit = true): Routed {
  const N = cm.size;
  const l2p = init.slice();
  const p2l = new Array<number>(N);
  l2p.forEach((p, l) => (p2l[p] = l));
  const qs = ops.map(qubitsOf);
  // DAG on wires: next[i] lists the successor of op i on each of its qubits and classical
  // bits (a conditioned gate must follow the measurement that sets its bits).
  const last = new Map<number, number>();
  const preds = new Int32Array(ops.length);
  const next: number[][] = ops.map(() => []);
  qs.forEach((list, i) => {
    for (const q of [...list, ...clbitWires(ops[i])]) {
      const p = last.get(q);
      if (p !== undefined) {
        next[p].push(i);
        preds[i]++;
      }
      last.set(q, i);
    }
  });
  let front: number[] = [];
  for (let i = 0; i < ops.length; i++) if (preds[i] === 0) front.push(i);
  const out: RoutedOp[] = [];
  const decay = new Float64Array(N).fill(1);
  let swaps = 0;
  let sinceProgress = 0;
  const needsRouting = (i: number): boolean => qs[i].length === 2 && ops[i].k !== 'op';
  const executable = (i: number): boolean => !needsRouting(i) || cm.dist[l2p[qs[i][0]]][l2p[qs[i][1]]] === 1;
  const doSwap = (a: number, b: number): void => {
    const la = p2l[a];
    const lb = p2l[b];
    p2l[a] = lb;
    p2l[b] = la;
    l2p[la] = b;
    l2p[lb] = a;
    if (emit) out.push({ k: 'swap', a, b });
    swaps++;
  };
  const extended = (): number[] => {
    const ext: number[] = [];
    const seen = new Set<number>(front);
    const queue = front.slice();
    for (let h = 0; h < queue.length && ext.length < EXTENDED_SIZE; h++) {
      for (const s of next[queue[h]]) {
        if (seen.has(s)) continue;
        seen.add(s);
        queue.push(s);
        if (needsRouting(s)) ext.push(s);
      }
    }
    return ext;
  };
  while (front.length) {
    const ready = front.filter(executable);
    if (ready.length) {
      const readySet = new Set(ready);
      front = front.filter((i) => !readySet.has(i));
      for (const i of ready) {
        if (emit) out.push({ k: 'op', index: i, phys: qs[i].map((q) => l2p[q]) });
        for (const s of next[i]) if (--preds[s] === 0) front.push(s);
      }
      decay.fill(1);
      sinceProgress = 0;
      continue;
    }
    const f2 = front.filter(needsRouting);
    if (sinceProgress > 3 * N + 10) {
      // Release valve: walk the closest front gate together along a shortest path.
      let best = f2[0];
      for (const i of f2) if (cm.dist[l2p[qs[i][0]]][l2p[qs[i][1]]] < cm.dist[l2p[qs[best][0]]][l2p[qs[best][1]]]) best = i;
      const a = l2p[qs[best][0]];
      const b = l2p[qs[best][1]];
      let cur = a;
      while (cm.dist[cur][b] > 1) {
        const step = cm.adj[cur].find((w) => cm.dist[w][b] === cm.dist[cur][b] - 1) as number;
        doSwap(cur, step);
        cur = step;
      }
      sinceProgress = 0;
      continue;
    }
    const ext = extended();
    const cands = new Set<number>();
    for (const i of f2) for (const q of qs[i]) {
      const p = l2p[q];
      for (const w of cm.adj[p]) cands.add(p < w ? p * N + w : w * N + p);
    }
    let bestScore = Infinity;
    let bestPairs: number[] = [];
    for (const key of cands) {
      const a = Math.floor(key / N);
      const b = key % N;
      const pos = (l: number): number => (l2p[l] === a ? b : l2p[l] === b ? a : l2p[l]);
      let basic = 0;
      for (const i of f2) basic += cm.dist[pos(qs[i][0])][pos(qs[i][1])];
      let extra = 0;
      for (const i of ext) extra += cm.dist[pos(qs[i][0])][pos(qs[i][1])];
      const score = Math.max(decay[a], decay[b]) * (basic / f2.length + (ext.length ? (EXTENDED_WEIGHT * extra) / ext.length : 0));
      if (score < bestScore - 1e-12) {
        bestScore = score;
        bestPairs = [key];
      } else if (Math.abs(score - bestScore) <= 1e-12) bestPairs.push(key);
    }
    const key = bestPairs[Math.floor(rand() * bestPairs.length)];
    const a = Math.floor(key / N);
    const b = key % N;
    doSwap(a, b);
    decay[a] += DECAY;
    decay[b] += DECAY;
    sinceProgress++;
  }
  return { ops: out, final: l2p, swaps };
}
