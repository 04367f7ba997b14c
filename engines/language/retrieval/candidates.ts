/**
 * What a second stage sees of a search index: the candidates of the first stage, the corpus
 * statistics it may ask for, and the text of a document as the index analysed it. A leaf
 * module, so that the rerankers and the index can each import it.
 */
import type { Scored } from './bm25.ts';
import type { StoredDoc } from './store.ts';

export interface Candidate extends StoredDoc {
  /** First-stage score and 0-based rank. */
  score: number;
  rank: number;
}

/** What a reranker may ask of the index: corpus statistics and the query's first stage. */
export interface RerankContext {
  n: number;
  avgdl: number;
  df(terms: readonly string[]): Promise<Map<string, number>>;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Cosine of the query with each document in the index's latent space (latent.ts); absent where there is no index. */
  latent?(query: string, docIds: readonly string[]): Promise<number[]>;
}

export interface Reranker {
  readonly name: string;
  rerank(query: string, candidates: readonly Candidate[], ctx: RerankContext): Promise<Scored[]>;
}

/** The text BM25 and the embedder see: the title once, then the body. */
export function indexedText(doc: { title?: string; text: string }): string {
  const title = doc.title?.trim() ?? '';
  return title && !doc.text.trimStart().startsWith(title) ? `${title}\n${doc.text}` : doc.text;
}
