/**
 * A persisted search index: BM25 over stemmed terms, dense vectors from an `Embedder`, and
 * their hybrid fusion, with optional reranking of the first-stage candidates. Documents can
 * be added at any time (re-adding a doc_id replaces it); scores use the statistics of the
 * whole index at query time.
 *
 * @example
 * const index = await SearchIndex.openDir('data/idx');
 * await index.add([{ doc_id: 'd1', text: 'boundary layer flow' }]);
 * const hits = await index.query('laminar boundary layer', { mode: 'hybrid', topK: 10 });
 * await index.close();
 */
import { openPglite } from '../../../platform/storage/database.ts';
import type { Database } from '../../../platform/storage/database.ts';
import { classicEmbedder } from '../embed/embedder.ts';
import type { Embedder } from '../embed/embedder.ts';
import { LanguageError, invalid } from '../errors.ts';
import { termCounts, terms } from '../text/tokenize.ts';
import { DEFAULT_BM25, bm25Scores, topK } from './bm25.ts';
import type { Bm25Params, Scored } from './bm25.ts';
import { fuse } from './fusion.ts';
import * as store from './store.ts';
import type { StoredDoc } from './store.ts';

export type SearchMode = 'bm25' | 'dense' | 'hybrid';

export interface InputDoc {
  doc_id: string;
  title?: string;
  text: string;
}

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
}

export interface Reranker {
  readonly name: string;
  rerank(query: string, candidates: readonly Candidate[], ctx: RerankContext): Promise<Scored[]>;
}

export interface QueryOptions {
  mode?: SearchMode;
  topK?: number;
  rerank?: Reranker;
  /** First-stage depth handed to the reranker (default 100). */
  rerankDepth?: number;
}

/** The text BM25 and the embedder see: the title once, then the body. */
export function indexedText(doc: { title?: string; text: string }): string {
  const title = doc.title?.trim() ?? '';
  return title && !doc.text.trimStart().startsWith(title) ? `${title}\n${doc.text}` : doc.text;
}

export class SearchIndex {
  readonly ns: string;
  readonly embedder: Embedder;
  bm25: Bm25Params = DEFAULT_BM25;
  /** Weight of BM25 in hybrid fusion; the rest goes to the dense score. */
  hybridWeight = 0.6;
  /**
   * Hybrid's dense side searches with the query's vector plus `denseFeedbackWeight` times the
   * mean vector of BM25's top `denseFeedbackDocs` (pseudo-relevance feedback, Rocchio style):
   * the hashing embedding alone knows only the query's own stems, the expanded vector also
   * the vocabulary of the documents BM25 trusts most. Measured on Cranfield (README).
   */
  denseFeedbackDocs = 5;
  denseFeedbackWeight = 2;
  private readonly db: Database;
  private readonly ownsDb: boolean;
  // Caches of what every query needs, dropped when this instance adds documents.
  private dense?: { ids: string[]; vectors: Float32Array[] };
  private stats?: { n: number; avgdl: number; lengths: Map<string, number> };

  private constructor(db: Database, ns: string, embedder: Embedder, ownsDb: boolean) {
    this.db = db;
    this.ns = ns;
    this.embedder = embedder;
    this.ownsDb = ownsDb;
  }

  /** Opens (creating when needed) the index `ns` in `db`. */
  static async open(db: Database, opts: { ns?: string; embedder?: Embedder; ownsDb?: boolean } = {}): Promise<SearchIndex> {
    const ns = opts.ns ?? 'default';
    await store.ensureSchema(db);
    const recorded = await store.getMeta(db, ns, 'embedder');
    let embedder = opts.embedder ?? classicEmbedder;
    if (recorded && recorded !== embedder.name) {
      if (opts.embedder) throw new LanguageError('index_invalid', `index "${ns}" was built with embedder ${recorded}, not ${embedder.name}`);
      if (recorded !== classicEmbedder.name) throw new LanguageError('index_invalid', `index "${ns}" needs embedder ${recorded}: pass it when opening`);
      embedder = classicEmbedder;
    }
    return new SearchIndex(db, ns, embedder, opts.ownsDb ?? false);
  }

  /** Opens the index kept in its own directory (an embedded PostgreSQL). */
  static async openDir(dir: string, opts: { embedder?: Embedder } = {}): Promise<SearchIndex> {
    let db: Database;
    try {
      db = await openPglite(dir);
    } catch (err) {
      throw new LanguageError('index_invalid', `cannot open index directory ${dir}: ${(err as Error).message}`, { cause: err });
    }
    try {
      return await SearchIndex.open(db, { ...opts, ownsDb: true });
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.ownsDb) await this.db.close();
  }

  async size(): Promise<number> {
    return (await this.corpus()).n;
  }

  /** Document count, mean length and every document's length (cached). */
  async corpus(): Promise<{ n: number; avgdl: number; lengths: Map<string, number> }> {
    if (!this.stats) {
      const lengths = await store.docLengths(this.db, this.ns);
      let total = 0;
      for (const l of lengths.values()) total += l;
      this.stats = { n: lengths.size, avgdl: lengths.size ? total / lengths.size : 0, lengths };
    }
    return this.stats;
  }

  /** Adds or replaces documents, embedding them in batches of `batchSize`. */
  async add(docs: readonly InputDoc[], opts: { batchSize?: number; onProgress?: (done: number) => void } = {}): Promise<void> {
    const batchSize = opts.batchSize ?? 128;
    docs.forEach((d, i) => {
      if (!d || typeof d.doc_id !== 'string' || d.doc_id === '' || /[\n\r]/.test(d.doc_id)) throw invalid(`document ${i}: doc_id must be a non-empty string on one line`);
      if (typeof d.text !== 'string') throw invalid(`document ${d.doc_id}: text must be a string`);
      if (d.title !== undefined && typeof d.title !== 'string') throw invalid(`document ${d.doc_id}: title must be a string`);
    });
    await store.setMeta(this.db, this.ns, 'embedder', this.embedder.name);
    for (let i = 0; i < docs.length; i += batchSize) {
      const batch = docs.slice(i, i + batchSize);
      const texts = batch.map(indexedText);
      const vectors = await this.embedder.embed(texts);
      const rows = batch.map((d, j) => {
        const list = terms(texts[j]);
        return { doc_id: d.doc_id, title: d.title ?? '', text: d.text, length: list.length, vector: vectors[j], terms: termCounts(list) };
      });
      await store.upsertDocs(this.db, this.ns, rows);
      opts.onProgress?.(Math.min(i + batchSize, docs.length));
    }
    this.dense = undefined;
    this.stats = undefined;
  }

  async bm25Search(query: string, k: number): Promise<Scored[]> {
    const counts = termCounts(terms(query));
    const stats = await this.corpus();
    const postings = await store.postingsFor(this.db, this.ns, [...counts.keys()]);
    return topK(bm25Scores(postings, counts, stats, this.bm25), k);
  }

  /** Cosine ranking; with `feedback` doc ids, the query vector is moved towards their mean (see denseFeedbackWeight). */
  async denseSearch(query: string, k: number, feedback: readonly string[] = []): Promise<Scored[]> {
    this.dense ??= await store.loadVectors(this.db, this.ns);
    const [embedded] = await this.embedder.embed([query]);
    let q: Float32Array | Float64Array = embedded;
    const { ids, vectors } = this.dense;
    if (feedback.length) {
      const at = new Map(ids.map((id, i) => [id, i]));
      const expanded = Float64Array.from(embedded);
      const share = this.denseFeedbackWeight / feedback.length;
      for (const id of feedback) {
        const v = vectors[at.get(id) ?? -1];
        if (v) for (let j = 0; j < v.length; j++) expanded[j] += share * v[j];
      }
      q = expanded;
    }
    const scores = new Map<string, number>();
    for (let i = 0; i < ids.length; i++) {
      const v = vectors[i];
      let dot = 0;
      for (let j = 0; j < q.length; j++) dot += q[j] * v[j];
      scores.set(ids[i], dot);
    }
    return topK(scores, k);
  }

  /** First-stage ranking in `mode`, `k` deep. */
  async firstStage(query: string, mode: SearchMode, k: number): Promise<Scored[]> {
    if (mode === 'bm25') return this.bm25Search(query, k);
    if (mode === 'dense') return this.denseSearch(query, k);
    // Fuse over deeper lists than asked so that a document strong in one list is not lost.
    const depth = Math.max(k, 200);
    const lex = await this.bm25Search(query, depth);
    const den = await this.denseSearch(query, depth, lex.slice(0, this.denseFeedbackDocs).map((s) => s.doc_id));
    return topK(fuse(lex, den, this.hybridWeight), k);
  }

  async candidates(query: string, first: readonly Scored[]): Promise<Candidate[]> {
    const docs = await store.loadDocs(this.db, this.ns, first.map((s) => s.doc_id));
    return first.flatMap((s, rank) => {
      const d = docs.get(s.doc_id);
      return d ? [{ ...d, score: s.score, rank }] : [];
    });
  }

  rerankContext(n: number, avgdl: number): RerankContext {
    return {
      n,
      avgdl,
      df: (list) => store.documentFrequencies(this.db, this.ns, list),
      embed: (texts) => this.embedder.embed(texts),
    };
  }

  async query(query: string, opts: QueryOptions = {}): Promise<Scored[]> {
    if (typeof query !== 'string') throw invalid('query text must be a string');
    const mode = opts.mode ?? 'bm25';
    if (!['bm25', 'dense', 'hybrid'].includes(mode)) throw invalid(`unknown search mode "${mode}"`);
    const k = opts.topK ?? 10;
    if (!Number.isInteger(k) || k <= 0) throw invalid('top-k must be a positive integer');
    if (!opts.rerank) return this.firstStage(query, mode, k);
    const first = await this.firstStage(query, mode, Math.max(k, opts.rerankDepth ?? 100));
    const stats = await this.corpus();
    const reranked = await opts.rerank.rerank(query, await this.candidates(query, first), this.rerankContext(stats.n, stats.avgdl));
    return reranked.slice(0, k);
  }
}
