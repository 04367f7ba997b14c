/**
 * Okapi BM25 over postings fetched from the store. idf uses the Lucene form
 * ln(1 + (N - df + 0.5) / (df + 0.5)), which stays positive for very common terms.
 */
import type { Posting } from './store.ts';

export interface Bm25Params {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * Scores every document that contains at least one query term. `queryCounts` holds the
 * query's term frequencies (a term repeated in the query counts more, as in Lucene).
 */
export function bm25Scores(
  postings: readonly Posting[],
  queryCounts: ReadonlyMap<string, number>,
  stats: { n: number; avgdl: number; lengths: ReadonlyMap<string, number> },
  params: Bm25Params = DEFAULT_BM25,
): Map<string, number> {
  const df = new Map<string, number>();
  for (const p of postings) df.set(p.term, (df.get(p.term) ?? 0) + 1);
  const scores = new Map<string, number>();
  const avgdl = stats.avgdl || 1;
  for (const p of postings) {
    const qtf = queryCounts.get(p.term) ?? 0;
    if (qtf === 0) continue;
    const w = idf(stats.n, df.get(p.term) ?? 0);
    const length = stats.lengths.get(p.doc_id) ?? avgdl;
    const norm = p.tf + params.k1 * (1 - params.b + (params.b * length) / avgdl);
    const s = qtf * w * ((p.tf * (params.k1 + 1)) / norm);
    scores.set(p.doc_id, (scores.get(p.doc_id) ?? 0) + s);
  }
  return scores;
}

export interface Scored {
  doc_id: string;
  score: number;
}

/** The `k` best entries, best first; ties broken by doc_id so rankings are deterministic. */
export function topK(scores: ReadonlyMap<string, number>, k: number): Scored[] {
  return [...scores]
    .map(([doc_id, score]) => ({ doc_id, score }))
    .sort((a, b) => b.score - a.score || (a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0))
    .slice(0, k);
}
