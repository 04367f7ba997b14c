/**
 * The classic rerank tier: the features of features.ts scored by a linear model learned
 * pairwise on Cranfield's judgements (weights in classic-weights.json, produced by
 * `lattice model train-rerank`). It needs no language model and runs in milliseconds.
 */
import { readFileSync } from 'node:fs';
import type { Scored } from '../retrieval/bm25.ts';
import type { Candidate, RerankContext, Reranker } from '../retrieval/candidates.ts';
import { FEATURE_COUNT, FEATURE_NAMES, extractFeatures } from './features.ts';
import { scoreRow } from './linear-ranker.ts';
import type { LinearRanker } from './linear-ranker.ts';

export const CLASSIC_WEIGHTS_PATH = new URL('./classic-weights.json', import.meta.url);

export function loadClassicWeights(path: URL | string = CLASSIC_WEIGHTS_PATH): LinearRanker {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as { features?: string[]; weights?: number[] };
  const weights = parsed.weights;
  if (!Array.isArray(weights) || weights.length !== FEATURE_COUNT || JSON.stringify(parsed.features) !== JSON.stringify(FEATURE_NAMES)) {
    throw new Error(`classic rerank weights in ${String(path)} do not match the features ${FEATURE_NAMES.join(', ')}`);
  }
  return { weights };
}

/** Sorts candidates by a per-row score, best first, ties by first-stage rank. */
export function orderBy(candidates: readonly Candidate[], scores: readonly number[]): Scored[] {
  return candidates
    .map((c, i) => ({ doc_id: c.doc_id, score: scores[i], rank: c.rank }))
    .sort((a, b) => b.score - a.score || a.rank - b.rank)
    .map(({ doc_id, score }) => ({ doc_id, score }));
}

export function classicReranker(model: LinearRanker = loadClassicWeights()): Reranker {
  return {
    name: 'classic',
    async rerank(query: string, candidates: readonly Candidate[], ctx: RerankContext) {
      if (candidates.length === 0) return [];
      const rows = await extractFeatures(query, candidates, ctx);
      return orderBy(candidates, rows.map((r) => scoreRow(model, r)));
    },
  };
}
