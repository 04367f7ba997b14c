/**
 * The quantum rerank tier: a fidelity kernel k(q, d) = |<0|U(d)† U(q)|0>|² between encoded
 * feature vectors, evaluated by building the circuit U(q) followed by U(d)† in the project's
 * circuit model and running it on the project's statevector simulator (engines/quantum).
 *
 * Encoding: one qubit per informative query term (the QUBITS highest-idf ones). A document's
 * feature for a term is its saturated BM25 term weight tf·(k1+1)/(tf + k1·norm) / (k1+1) in
 * [0, 1); the query's is 1 (an ideal document saturates every term). U(x) is two layers of
 * RY(π/4·x_i) rotations with a ring of CX between them (data re-uploading), so the kernel
 * rewards documents that match the informative terms together, not one at a time.
 * The kernel is added to a base tier's score (the classic tier by default):
 * score = base + KERNEL_WEIGHT·k.
 *
 * No GPU statevector backend exists in this project yet, so `quantum_gpu` runs the same
 * kernel on the CPU and says so in `lastRun.device`.
 */
import type { Circuit, GateOp } from '../../quantum/circuit.ts';
import { emptyCircuit } from '../../quantum/circuit.ts';
import { simulateStatevector } from '../../quantum/index.ts';
import { DEFAULT_BM25, idf } from '../retrieval/bm25.ts';
import type { Scored } from '../retrieval/bm25.ts';
import type { Candidate, RerankContext, Reranker } from '../retrieval/search-index.ts';
import { indexedText } from '../retrieval/search-index.ts';
import { analyze } from '../text/analyzer.ts';
import { termCounts } from '../text/tokenize.ts';
import { classicReranker } from './classic.ts';

export const QUBITS = 6;
/** Weight of the kernel added to the base score (chosen on Cranfield; larger weights hurt there). */
export const KERNEL_WEIGHT = 0.25;

function encode(c: Circuit, x: readonly number[], inverse: boolean): void {
  const n = x.length;
  // π/4 per layer, π/2 in all: a missing term halves a qubit's overlap instead of zeroing it,
  // so the kernel grades partial matches (with π in all it was a strict AND, and with 2π
  // x = 1 came back onto x = 0); measured on Cranfield, this grading ranks best.
  const layer = (): GateOp[] => x.map((v, i) => ({ kind: 'gate', name: 'ry', qubits: [i], params: [(Math.PI / 4) * v] }));
  const ring: GateOp[] = [];
  for (let i = 0; i < n && n > 1; i++) {
    if (n === 2 && i === 1) break;
    ring.push({ kind: 'gate', name: 'cx', qubits: [i, (i + 1) % n], params: [] });
  }
  const ops = [...layer(), ...ring, ...layer()];
  if (!inverse) {
    c.ops.push(...ops);
    return;
  }
  // U† reverses the gate order and inverts each gate: RY(θ)† = RY(-θ), CX† = CX.
  for (const op of ops.reverse()) c.ops.push(op.name === 'ry' ? { ...op, params: [-op.params[0]] } : op);
}

/** |<0|U(b)† U(a)|0>|², simulated. */
export function fidelityKernel(a: readonly number[], b: readonly number[]): number {
  const c = emptyCircuit(a.length);
  encode(c, a, false);
  encode(c, b, true);
  const sv = simulateStatevector(c);
  return sv[0] * sv[0] + sv[1] * sv[1];
}

export interface QuantumRunInfo {
  device: 'cpu';
  requested: 'cpu' | 'gpu';
  circuits: number;
  qubits: number;
}

export interface QuantumReranker extends Reranker {
  lastRun?: QuantumRunInfo;
}

/**
 * The kernel between the query and each candidate, in candidate order, with what ran: one
 * QUBITS-qubit circuit per candidate on the statevector simulator.
 */
export async function kernelScores(query: string, candidates: readonly Candidate[], ctx: RerankContext): Promise<{ scores: number[]; qubits: number }> {
  const qTerms = [...termCounts(analyze(query)).keys()];
  const df = await ctx.df(qTerms);
  const chosen = qTerms
    .map((t) => ({ t, w: idf(ctx.n, df.get(t) ?? 0) }))
    .sort((a, b) => b.w - a.w || (a.t < b.t ? -1 : 1))
    .slice(0, QUBITS)
    .map((x) => x.t);
  if (chosen.length === 0) return { scores: candidates.map(() => 0), qubits: 0 };
  const { k1, b } = DEFAULT_BM25;
  const qVec = chosen.map(() => 1);
  const scores = candidates.map((c) => {
    const list = analyze(indexedText(c));
    const counts = termCounts(list);
    const norm = 1 - b + (b * list.length) / (ctx.avgdl || 1);
    const dVec = chosen.map((t) => {
      const tf = counts.get(t) ?? 0;
      return (tf * (k1 + 1)) / (tf + k1 * norm) / (k1 + 1);
    });
    return fidelityKernel(qVec, dVec);
  });
  return { scores, qubits: chosen.length };
}

export function quantumReranker(opts: { device?: 'cpu' | 'gpu'; kernelWeight?: number; base?: Reranker } = {}): QuantumReranker {
  const base = opts.base ?? classicReranker();
  const weight = opts.kernelWeight ?? KERNEL_WEIGHT;
  const self: QuantumReranker = {
    name: opts.device === 'gpu' ? 'quantum_gpu' : 'quantum_cpu',
    async rerank(query: string, candidates: readonly Candidate[], ctx: RerankContext): Promise<Scored[]> {
      if (candidates.length === 0) return [];
      const first = new Map((await base.rerank(query, candidates, ctx)).map((s) => [s.doc_id, s.score]));
      const { scores, qubits } = await kernelScores(query, candidates, ctx);
      self.lastRun = { device: 'cpu', requested: opts.device ?? 'cpu', circuits: qubits ? candidates.length : 0, qubits };
      return candidates
        .map((c, i) => ({ doc_id: c.doc_id, score: (first.get(c.doc_id) ?? 0) + weight * scores[i], rank: c.rank }))
        .sort((x, y) => y.score - x.score || x.rank - y.rank)
        .map(({ doc_id, score }) => ({ doc_id, score }));
    },
  };
  return self;
}
