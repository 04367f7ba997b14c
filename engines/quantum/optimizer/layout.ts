/** Initial layout (SABRE forward-backward search), routing, and restoring the layout on request. */
import type { Operation } from '../circuit.ts';
import type { Coupling } from './coupling.ts';
import type { Ir, IrOp } from './ir.ts';
import { route, type RoutedOp } from './sabre.ts';
import { rng } from './sim.ts';

export interface LayoutResult {
  ir: Ir;
  /** logical -> physical at the start and at the end */
  initial: number[];
  final: number[];
  swaps: number;
}

/** Physical qubits in BFS order from `start`, within its component. */
function bfsOrder(cm: Coupling, start: number): number[] {
  const seen = new Set([start]);
  const order = [start];
  for (let h = 0; h < order.length; h++) for (const w of cm.adj[order[h]]) if (!seen.has(w)) {
    seen.add(w);
    order.push(w);
  }
  return order;
}

/** A full layout (all N physical qubits) whose first n entries sit on a dense connected region. */
function seedLayout(cm: Coupling, n: number, start: number, rand: () => number, shuffle: boolean): number[] {
  const order = bfsOrder(cm, start);
  const region = order.slice(0, n);
  if (shuffle) for (let i = region.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [region[i], region[j]] = [region[j], region[i]];
  }
  const used = new Set(region);
  const rest: number[] = [];
  for (let p = 0; p < cm.size; p++) if (!used.has(p)) rest.push(p);
  return [...region, ...rest];
}

function remapOperation(op: Operation, l2p: (q: number) => number): Operation {
  switch (op.kind) {
    case 'measure':
    case 'reset':
      return { ...op, qubit: l2p(op.qubit) };
    default:
      return { ...op, qubits: op.qubits.map(l2p) };
  }
}

function toIr(ops: IrOp[], routed: RoutedOp[], size: number, phase: number): Ir {
  const out: IrOp[] = [];
  for (const r of routed) {
    if (r.k === 'swap') {
      out.push({ k: 'cx', c: r.a, t: r.b }, { k: 'cx', c: r.b, t: r.a }, { k: 'cx', c: r.a, t: r.b });
      continue;
    }
    const op = ops[r.index];
    const p = r.phys;
    if (op.k === 'u') out.push({ ...op, q: p[0] });
    else if (op.k === 'cx') out.push({ ...op, c: p[0], t: p[1] });
    else if (op.k === 'u2') out.push({ ...op, q: [p[0], p[1]] });
    else {
      const map = new Map(op.qs.map((q, i) => [q, p[i]]));
      out.push({ k: 'op', qs: p, op: remapOperation(op.op, (q) => map.get(q) as number) });
    }
  }
  return { n: size, ops: out, phase };
}

/** Swaps along a spanning tree that bring every token home (leaf by leaf, so homes stay put). */
function restoreSwaps(cm: Coupling, l2p: number[]): RoutedOp[] {
  const N = cm.size;
  const at = new Array<number>(N); // physical -> token (the logical qubit, home = its index)
  l2p.forEach((p, l) => (at[p] = l));
  const out: RoutedOp[] = [];
  const done = new Uint8Array(N);
  for (let root = 0; root < N; root++) {
    if (done[root]) continue;
    const order = bfsOrder(cm, root);
    const parent = new Map<number, number>();
    const inTree = new Set(order);
    for (const v of order) for (const w of cm.adj[v]) if (inTree.has(w) && !parent.has(w) && w !== root) {
      if (order.indexOf(w) > order.indexOf(v)) parent.set(w, v);
    }
    // Settle vertices in reverse BFS order: each is then a leaf of the tree that remains.
    for (let k = order.length - 1; k >= 0; k--) {
      const v = order[k];
      const u = at.indexOf(v);
      if (u !== v) {
        // Path u -> v inside the remaining tree: up from both to their common ancestor.
        const up = (x: number): number[] => {
          const p = [x];
          while (p[p.length - 1] !== root) p.push(parent.get(p[p.length - 1]) as number);
          return p;
        };
        const pu = up(u);
        const pv = up(v);
        const setV = new Set(pv);
        const meet = pu.find((x) => setV.has(x)) as number;
        const path = [...pu.slice(0, pu.indexOf(meet) + 1), ...pv.slice(0, pv.indexOf(meet)).reverse()];
        for (let i = 0; i + 1 < path.length; i++) {
          const a = path[i];
          const b = path[i + 1];
          [at[a], at[b]] = [at[b], at[a]];
          out.push({ k: 'swap', a, b });
        }
      }
      done[v] = 1;
    }
  }
  return out;
}

export interface LayoutOptions {
  preserveLayout: boolean;
  /** Forward-backward refinement rounds and independent trials (more at higher levels). */
  iterations: number;
  trials: number;
  seed: number;
}

/** Lays out and routes `ir` on the coupling map; the result acts on physical qubits 0..N-1. */
export function layoutAndRoute(ir: Ir, cm: Coupling, o: LayoutOptions): LayoutResult {
  const n = ir.n;
  const N = cm.size;
  if (n > N) throw new Error(`the circuit needs ${n} qubits but the coupling map has ${N}`);
  const comps = new Map<number, number>();
  for (let p = 0; p < N; p++) comps.set(cm.component[p], (comps.get(cm.component[p]) ?? 0) + 1);
  const rand = rng(o.seed);
  const centers = [...Array(N).keys()].filter((p) => (comps.get(cm.component[p]) as number) >= n);
  if (!centers.length) throw new Error(`no connected part of the coupling map has ${n} qubits`);
  let init: number[];
  if (o.preserveLayout) {
    for (let q = 1; q < n; q++) if (cm.component[q] !== cm.component[0]) {
      throw new Error('preserve_layout needs physical qubits 0..n-1 to be connected');
    }
    init = [...Array(N).keys()];
  } else {
    centers.sort((a, b) => cm.adj[b].length - cm.adj[a].length || a - b);
    const reversed = ir.ops.slice().reverse();
    let best: { init: number[]; swaps: number } | null = null;
    for (let t = 0; t < o.trials; t++) {
      const start = t === 0 ? centers[0] : centers[Math.floor(rand() * centers.length)];
      let layout = seedLayout(cm, n, start, rand, t > 0);
      for (let it = 0; it < o.iterations; it++) {
        layout = route(ir.ops, layout, cm, rand, false).final;
        layout = route(reversed, layout, cm, rand, false).final;
      }
      const swaps = route(ir.ops, layout, cm, rand, false).swaps;
      if (!best || swaps < best.swaps) best = { init: layout, swaps };
    }
    init = (best as { init: number[] }).init;
  }
  const routed = route(ir.ops, init, cm, rand, true);
  let final = routed.final;
  let ops = routed.ops;
  let swaps = routed.swaps;
  if (o.preserveLayout) {
    const back = restoreSwaps(cm, final);
    ops = [...ops, ...back];
    swaps += back.length;
    final = [...Array(N).keys()];
  }
  return { ir: toIr(ir.ops, ops, N, ir.phase), initial: init.slice(0, n), final: final.slice(0, n), swaps };
}
