/**
 * Learns the classic rerank tier's weights from judged queries: features over each query's
 * first-stage candidates, then the pairwise linear ranker. The shipped weights are learned on
 * one half of Cranfield's queries only (`splitQueries`), so the other half measures them on
 * queries whose judgements they never saw; k-fold cross-validation is kept for comparisons.
 */
import type { Qrels, Query } from '../eval/cranfield.ts';
import { mean, ndcgAt } from '../eval/metrics.ts';
import type { Candidate, SearchIndex, SearchMode } from '../retrieval/search-index.ts';
import { extractFeatures } from './features.ts';
import { scoreRow, trainLinearRanker } from './linear-ranker.ts';
import type { LinearRanker, TrainingQuery } from './linear-ranker.ts';

export interface JudgedCandidates extends TrainingQuery {
  query_id: string;
  doc_ids: string[];
  /** The candidates themselves, for tiers that need the texts. */
  candidates: Candidate[];
}

/** The first stage the shipped weights are learned over: the default of `lattice search query`. */
export const TRAINING_MODE: SearchMode = 'hybrid';

/**
 * The split of a collection's queries: those at even positions in file order (Cranfield's
 * 1, 3, 5, ..., 225: 113 queries) train, those at odd positions (2, 4, ..., 224: 112) are held
 * out. Interleaved rather than halved because Cranfield's queries were written in batches and
 * neighbours resemble each other less than batches do; fixed, so every figure uses the same.
 */
export function splitQueries<T extends { query_id: string }>(queries: readonly T[]): { train: T[]; heldOut: T[] } {
  const seen = new Set<string>();
  for (const q of queries) {
    if (seen.has(q.query_id)) throw new Error(`query ${q.query_id} appears twice: a split needs unique query ids`);
    seen.add(q.query_id);
  }
  return { train: queries.filter((_, i) => i % 2 === 0), heldOut: queries.filter((_, i) => i % 2 === 1) };
}

export async function collectTrainingData(
  index: SearchIndex,
  queries: readonly Query[],
  qrels: Qrels,
  opts: { depth?: number; mode?: SearchMode; onProgress?: (done: number) => void } = {},
): Promise<JudgedCandidates[]> {
  const stats = await index.corpus();
  const ctx = index.rerankContext(stats.n, stats.avgdl);
  const out: JudgedCandidates[] = [];
  for (const q of queries) {
    const candidates = await index.candidates(q.text, await index.firstStage(q.text, opts.mode ?? TRAINING_MODE, opts.depth ?? 100));
    const judged = qrels.get(q.query_id);
    out.push({
      query_id: q.query_id,
      doc_ids: candidates.map((c) => c.doc_id),
      candidates,
      features: await extractFeatures(q.text, candidates, ctx),
      gains: candidates.map((c) => judged?.get(c.doc_id) ?? 0),
    });
    opts.onProgress?.(out.length);
  }
  return out;
}

export function rankWith(model: LinearRanker, q: JudgedCandidates): string[] {
  return q.doc_ids
    .map((id, i) => ({ id, s: scoreRow(model, q.features[i]), i }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.id);
}

/**
 * Cross-validation: each query is scored by weights learned on the other folds. Returns the
 * mean nDCG@10, the rankings, and every candidate's held-out score (for tiers built on top).
 */
export function crossValidate(
  data: readonly JudgedCandidates[],
  qrels: Qrels,
  folds = 2,
): { ndcg10: number; rankings: Map<string, string[]>; scores: Map<string, number[]> } {
  const rankings = new Map<string, string[]>();
  const scores = new Map<string, number[]>();
  for (let f = 0; f < folds; f++) {
    const model = trainLinearRanker(data.filter((_, i) => i % folds !== f));
    data.forEach((q, i) => {
      if (i % folds !== f) return;
      rankings.set(q.query_id, rankWith(model, q));
      scores.set(q.query_id, q.features.map((row) => scoreRow(model, row)));
    });
  }
  return { ndcg10: mean(data.map((q) => ndcgAt(rankings.get(q.query_id) ?? [], qrels.get(q.query_id), 10))), rankings, scores };
}

/**
 * Learns weights on the training half only and scores them on both halves: what
 * `lattice model train-rerank` writes and the benchmarks report. `data` holds every query.
 */
export function trainOnSplit(
  data: readonly JudgedCandidates[],
  qrels: Qrels,
): { model: LinearRanker; train: string[]; heldOut: string[]; ndcg10: { train: number; heldOut: number; all: number }; rankings: Map<string, string[]> } {
  const { train, heldOut } = splitQueries(data);
  const model = trainLinearRanker(train);
  const rankings = new Map(data.map((q) => [q.query_id, rankWith(model, q)]));
  const score = (qs: readonly JudgedCandidates[]): number => mean(qs.map((q) => ndcgAt(rankings.get(q.query_id) ?? [], qrels.get(q.query_id), 10)));
  return {
    model,
    train: train.map((q) => q.query_id),
    heldOut: heldOut.map((q) => q.query_id),
    ndcg10: { train: score(train), heldOut: score(heldOut), all: score(data) },
    rankings,
  };
}
