/**
 * Reranks a plain list of documents (the rerank API: a query and texts, no index): the list
 * itself is the corpus, BM25 over it is the first stage, and the chosen tier reorders it.
 */
import { classicEmbedder } from '../embed/embedder.ts';
import { bm25Scores } from '../retrieval/bm25.ts';
import type { Candidate, RerankContext, Reranker } from '../retrieval/search-index.ts';
import { analyze } from '../text/analyzer.ts';
import { termCounts } from '../text/tokenize.ts';

export async function rerankDocuments(reranker: Reranker, query: string, documents: readonly string[]): Promise<{ index: number; score: number }[]> {
  const docTerms = documents.map((d) => analyze(d));
  const lengths = new Map(docTerms.map((t, i) => [String(i), t.length]));
  const n = documents.length;
  const avgdl = docTerms.reduce((s, t) => s + t.length, 0) / Math.max(1, n);
  const counts = docTerms.map((t) => termCounts(t));
  const postings = counts.flatMap((c, i) => [...c].map(([term, tf]) => ({ term, doc_id: String(i), tf })));
  const q = termCounts(analyze(query));
  const first = bm25Scores(postings.filter((p) => q.has(p.term)), q, { n, avgdl, lengths });
  const order = documents
    .map((text, i) => ({ doc_id: String(i), title: '', text, score: first.get(String(i)) ?? 0, i }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const candidates: Candidate[] = order.map((c, rank) => ({ doc_id: c.doc_id, title: c.title, text: c.text, score: c.score, rank }));
  const ctx: RerankContext = {
    n,
    avgdl,
    async df(list) {
      const out = new Map<string, number>();
      for (const t of list) out.set(t, counts.reduce((s, c) => s + (c.has(t) ? 1 : 0), 0));
      return out;
    },
    embed: (texts) => classicEmbedder.embed(texts),
  };
  const ranked = await reranker.rerank(query, candidates, ctx);
  return ranked.map((r) => ({ index: Number(r.doc_id), score: r.score }));
}
