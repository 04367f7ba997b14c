/**
 * Okapi BM25 over postings fetched from the store. idf uses the Lucene form
 * ln(1 + (N - df + 0.5) / (df + 0.5)), which stays positive for very common terms.
 *
 * Parameters: Lucene's BM25Similarity defaults, k1 1.2 and b 0.75. Anserini's 0.9 and 0.4 were
 * tuned on long web and news documents; on the training half of Cranfield's queries (with the
 * title field, below) they score nDCG@10 0.394 against 0.397 for Lucene's, and a grid over k1
 * 0.9-2 and b 0.4-0.9 lies between 0.390 and 0.399 there: no setting is clearly better, so the
 * published default stays (README, "Retrieval").
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

/** Document frequency of each term in a postings list (one posting per term and document). */
export function postingDf(postings: readonly Posting[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const p of postings) df.set(p.term, (df.get(p.term) ?? 0) + 1);
  return df;
}

/**
 * Scores every document that contains at least one query term. `queryCounts` holds the
 * query's term weights: its term frequencies (a term repeated in the query counts more, as in
 * Lucene), or the fractional weights of an expanded query. `df` defaults to the postings'
 * own; a field scored on its own (the title) passes the whole text's, so that a term's
 * rarity is judged once for the document.
 */
export function bm25Scores(
  postings: readonly Posting[],
  queryCounts: ReadonlyMap<string, number>,
  stats: { n: number; avgdl: number; lengths: ReadonlyMap<string, number> },
  params: Bm25Params = DEFAULT_BM25,
  df: ReadonlyMap<string, number> = postingDf(postings),
): Map<string, number> {
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
