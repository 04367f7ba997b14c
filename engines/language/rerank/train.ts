/**
 * Learns the classic rerank tier's weights from judged queries: features over each query's
 * first-stage candidates, then the pairwise linear ranker. Also runs k-fold cross-validation,
 * so the figure reported for a collection never comes from weights trained on the same queries.
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
    const candidates = await index.candidates(q.text, await index.firstStage(q.text, opts.mode ?? 'bm25', opts.depth ?? 100));
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
