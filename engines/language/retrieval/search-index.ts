/**
 * A persisted search index: BM25 over the analyzer's terms (the whole text and the title as a
 * second field), RM3 pseudo-relevance feedback, dense vectors from an `Embedder`, and their
 * hybrid fusion, then a rerank of the first stage's top 100 (the classic tier unless the
 * caller picks another or none). Documents can be added at any time (re-adding a doc_id
 * replaces it); scores use the statistics of the whole index at query time.
 *
 * @example
 * const index = await SearchIndex.openDir('data/idx', { open: openPglite }); // the platform's embedded store
 * await index.add([{ doc_id: 'd1', text: 'boundary layer flow' }]);
 * const hits = await index.query('laminar boundary layer', { mode: 'hybrid', topK: 10 });
 * await index.close();
 */
import { classicEmbedder } from '../embed/embedder.ts';
import type { Embedder } from '../embed/embedder.ts';
import { LanguageError, invalid } from '../errors.ts';
import { ANALYZER_VERSION, analyze } from '../text/analyzer.ts';
import { termCounts } from '../text/tokenize.ts';
import { DEFAULT_BM25, bm25Scores, postingDf, topK } from './bm25.ts';
import type { Bm25Params, Scored } from './bm25.ts';
import { indexedText, type Candidate, type RerankContext, type Reranker } from './candidates.ts';
import { fuseWeighted } from './fusion.ts';
import type { IndexStore, OpenIndexDir } from './index-store.ts';
import { DEFAULT_LATENT_DIMS, fitLatent, latentScores } from './latent.ts';
import type { LatentModel } from './latent.ts';
import { DEFAULT_RM3, rm3Expand } from './rm3.ts';
import type { Rm3Params } from './rm3.ts';
import * as store from './store.ts';

export { indexedText } from './candidates.ts';
export type { Candidate, RerankContext, Reranker } from './candidates.ts';

export type SearchMode = 'bm25' | 'dense' | 'hybrid';

export const SEARCH_MODES: readonly SearchMode[] = ['bm25', 'dense', 'hybrid'];

/**
 * What `query` does when its caller names nothing, and what `lattice search query` and the
 * language API's dataset search and RAG use: hybrid first stage, classic rerank of its top 100.
 * Measured on Cranfield's held-out half and on all its queries (README, "Retrieval").
 */
export const DEFAULT_MODE: SearchMode = 'hybrid';

export interface InputDoc {
  doc_id: string;
  title?: string;
  text: string;
}

export interface QueryOptions {
  mode?: SearchMode;
  topK?: number;
  /** The second stage: left out, the index's default (`defaultRerank`); null, none. */
  rerank?: Reranker | null;
  /** First-stage depth handed to the reranker (default 100). */
  rerankDepth?: number;
  /** RM3 feedback in the lexical first stage; left out, on when the index's `rm3` is set. */
  rm3?: boolean;
}

interface CorpusStats {
  n: number;
  avgdl: number;
  lengths: Map<string, number>;
  titleAvgdl: number;
  titleLengths: Map<string, number>;
}

/** What the postings of one document hold: the analysed whole text and the analysed title. */
function analysed(doc: { doc_id: string; title?: string; text: string }): store.PostingRow {
  const list = analyze(indexedText(doc));
  const title = analyze(doc.title ?? '');
  return { doc_id: doc.doc_id, length: list.length, terms: termCounts(list), titleLength: title.length, titleTerms: termCounts(title) };
}

export class SearchIndex {
  readonly ns: string;
  readonly embedder: Embedder;
  bm25: Bm25Params = DEFAULT_BM25;
  /**
   * The lexical score is BM25 over the whole text plus `titleWeight` times BM25 over the title
   * alone (both with the whole text's idf): a query term in the title says more about what a
   * document is about than one in passing. 1 was chosen on the training half of Cranfield's
   * queries over 0, 0.5, 1, 1.5, 2 and 3 (README); 0 turns the field off.
   */
  titleWeight = 1;
  /** RM3 pseudo-relevance feedback of the lexical first stage (rm3.ts); null turns it off. */
  rm3: Rm3Params | null = DEFAULT_RM3;
  /** The second stage `query` runs when its caller names none; null: none. */
  defaultRerank: 'classic' | null = 'classic';
  /**
   * Hybrid fuses three min-max normalised lists: the lexical first stage (`hybridWeight`), the
   * latent space fitted on the index's documents (`latentWeight`, latent.ts) and the
   * embedder's dense search (the rest). 0.4 / 0.4 / 0.2 were chosen on the training half of
   * Cranfield's queries over lexical 0.4-0.6 and dense 0-0.2 (README).
   */
  hybridWeight = 0.4;
  latentWeight = 0.4;
  /** Dimensions of the latent space (latent.ts); 0 leaves it out of hybrid. */
  latentDims = DEFAULT_LATENT_DIMS;
  /**
   * Hybrid's dense side searches with the query's vector plus `denseFeedbackWeight` times the
   * mean vector of BM25's top `denseFeedbackDocs` (pseudo-relevance feedback, Rocchio style):
   * the hashing embedding alone knows only the query's own stems, the expanded vector also
   * the vocabulary of the documents BM25 trusts most. Measured on Cranfield (README).
   */
  denseFeedbackDocs = 5;
  denseFeedbackWeight = 2;
  private readonly db: IndexStore;
  private readonly ownsDb: boolean;
  // Caches of what every query needs, dropped when this instance adds documents.
  private dense?: { ids: string[]; vectors: Float32Array[] };
  private stats?: CorpusStats;
  private classic?: Promise<Reranker>;
  private latent?: Promise<LatentModel | null>;

  private constructor(db: IndexStore, ns: string, embedder: Embedder, ownsDb: boolean) {
    this.db = db;
    this.ns = ns;
    this.embedder = embedder;
    this.ownsDb = ownsDb;
  }

  /** Opens (creating when needed) the index `ns` in `db`; the index closes `db` on close only when `ownsDb`. */
  static async open(db: IndexStore, opts: { ns?: string; embedder?: Embedder; ownsDb?: boolean } = {}): Promise<SearchIndex> {
    const ns = opts.ns ?? 'default';
    await store.ensureSchema(db);
    const recorded = await store.getMeta(db, ns, 'embedder');
    let embedder = opts.embedder ?? classicEmbedder;
    if (recorded && recorded !== embedder.name) {
      if (opts.embedder) throw new LanguageError('index_invalid', `index "${ns}" was built with embedder ${recorded}, not ${embedder.name}`);
      if (recorded !== classicEmbedder.name) throw new LanguageError('index_invalid', `index "${ns}" needs embedder ${recorded}: pass it when opening`);
      embedder = classicEmbedder;
    }
    const index = new SearchIndex(db, ns, embedder, opts.ownsDb ?? false);
    if ((await store.getMeta(db, ns, 'analyzer')) !== ANALYZER_VERSION) await index.reanalyze();
    return index;
  }

  /**
   * Rewrites every document's postings with the current analyzer, from the stored texts: an
   * index written by an earlier analyzer (or before the title field existed) would otherwise
   * miss terms its queries now ask for. Vectors are left alone (the embedder did not change).
   */
  async reanalyze(): Promise<number> {
    let after: string | null = null;
    let done = 0;
    for (;;) {
      const page = await store.docsPage(this.db, this.ns, after, 500);
      if (page.length === 0) break;
      await store.replacePostings(this.db, this.ns, page.map(analysed));
      done += page.length;
      after = page[page.length - 1].doc_id;
    }
    if (done > 0) await store.setMeta(this.db, this.ns, 'analyzer', ANALYZER_VERSION);
    this.stats = undefined;
    this.latent = undefined;
    return done;
  }

  /** Opens the index kept in its own directory, in the embedded store `opts.open` opens there. */
  static async openDir(dir: string, opts: { open: OpenIndexDir; embedder?: Embedder }): Promise<SearchIndex> {
    let db: IndexStore;
    try {
      db = await opts.open(dir);
    } catch (err) {
      throw new LanguageError('index_invalid', `cannot open index directory ${dir}: ${(err as Error).message}`, { cause: err });
    }
    try {
      return await SearchIndex.open(db, { embedder: opts.embedder, ownsDb: true });
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

  /** Document count, mean lengths and every document's lengths, of the whole text and the title (cached). */
  async corpus(): Promise<CorpusStats> {
    if (!this.stats) {
      const lengths = await store.docLengths(this.db, this.ns, 'body');
      const titleLengths = await store.docLengths(this.db, this.ns, 'title');
      const mean = (m: Map<string, number>): number => {
        let total = 0;
        for (const l of m.values()) total += l;
        return m.size ? total / m.size : 0;
      };
      this.stats = { n: lengths.size, avgdl: mean(lengths), lengths, titleAvgdl: mean(titleLengths), titleLengths };
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
    await store.setMeta(this.db, this.ns, 'analyzer', ANALYZER_VERSION);
    for (let i = 0; i < docs.length; i += batchSize) {
      const batch = docs.slice(i, i + batchSize);
      const texts = batch.map(indexedText);
      const vectors = await this.embedder.embed(texts);
      const rows = batch.map((d, j) => ({ ...analysed(d), title: d.title ?? '', text: d.text, vector: vectors[j] }));
      await store.upsertDocs(this.db, this.ns, rows);
      opts.onProgress?.(Math.min(i + batchSize, docs.length));
    }
    this.dense = undefined;
    this.stats = undefined;
    this.latent = undefined;
  }

  /** BM25 of weighted query terms over the whole text, plus `titleWeight` times BM25 over the title. */
  async lexicalScores(weights: ReadonlyMap<string, number>): Promise<Map<string, number>> {
    const stats = await this.corpus();
    const list = [...weights.keys()];
    const body = await store.postingsFor(this.db, this.ns, list, 'body');
    const df = postingDf(body);
    const scores = bm25Scores(body, weights, stats, this.bm25, df);
    if (this.titleWeight > 0 && stats.titleAvgdl > 0) {
      const title = await store.postingsFor(this.db, this.ns, list, 'title');
      const inTitle = bm25Scores(title, weights, { n: stats.n, avgdl: stats.titleAvgdl, lengths: stats.titleLengths }, this.bm25, df);
      for (const [id, s] of inTitle) scores.set(id, (scores.get(id) ?? 0) + this.titleWeight * s);
    }
    return scores;
  }

  /** The query's terms as RM3 expands them over this index (the query's own when there is no feedback). */
  async expandQuery(query: string, params: Rm3Params | null = this.rm3): Promise<Map<string, number>> {
    const counts = termCounts(analyze(query));
    if (!params || counts.size === 0) return counts;
    const first = topK(await this.lexicalScores(counts), params.docs);
    if (first.length === 0) return counts;
    const docs = await store.loadDocs(this.db, this.ns, first.map((s) => s.doc_id));
    const feedback = first.flatMap((s) => {
      const d = docs.get(s.doc_id);
      if (!d) return [];
      const list = analyze(indexedText(d));
      return [{ terms: termCounts(list), length: list.length, score: s.score }];
    });
    return rm3Expand(counts, feedback, params);
  }

  async bm25Search(query: string, k: number, opts: { rm3?: boolean } = {}): Promise<Scored[]> {
    const rm3 = opts.rm3 === false ? null : this.rm3 ?? (opts.rm3 ? DEFAULT_RM3 : null);
    return topK(await this.lexicalScores(await this.expandQuery(query, rm3)), k);
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

  /**
   * The latent space of the index's documents, fitted on first use and kept until documents
   * are added; not persisted (Cranfield's 1,400 abstracts: 10 s on the two shared bench cores
   * under heavy load).
   */
  latentModel(): Promise<LatentModel | null> {
    if (this.latentDims <= 0) return Promise.resolve(null);
    this.latent ??= store.termsByDoc(this.db, this.ns).then((docs) => fitLatent(docs, this.latentDims));
    this.latent.catch(() => (this.latent = undefined));
    return this.latent;
  }

  /** Cosine ranking in the latent space (latent.ts). */
  async latentSearch(query: string, k: number): Promise<Scored[]> {
    const model = await this.latentModel();
    if (!model) return [];
    return topK(latentScores(model, termCounts(analyze(query))), k);
  }

  /** First-stage ranking in `mode`, `k` deep. */
  async firstStage(query: string, mode: SearchMode, k: number, opts: { rm3?: boolean } = {}): Promise<Scored[]> {
    if (mode === 'bm25') return this.bm25Search(query, k, opts);
    if (mode === 'dense') return this.denseSearch(query, k);
    // Fuse over deeper lists than asked so that a document strong in one list is not lost.
    const depth = Math.max(k, 200);
    const lex = await this.bm25Search(query, depth, opts);
    const denseWeight = Math.max(0, 1 - this.hybridWeight - this.latentWeight);
    const den = denseWeight > 0 ? await this.denseSearch(query, depth, lex.slice(0, this.denseFeedbackDocs).map((s) => s.doc_id)) : [];
    const lat = this.latentWeight > 0 ? await this.latentSearch(query, depth) : [];
    return topK(
      fuseWeighted([
        { list: lex, weight: this.hybridWeight },
        { list: lat, weight: this.latentWeight },
        { list: den, weight: denseWeight },
      ]),
      k,
    );
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
      latent: async (query, docIds) => {
        const model = await this.latentModel();
        if (!model) return docIds.map(() => 0);
        const scores = latentScores(model, termCounts(analyze(query)));
        return docIds.map((id) => scores.get(id) ?? 0);
      },
    };
  }

  async query(query: string, opts: QueryOptions = {}): Promise<Scored[]> {
    if (typeof query !== 'string') throw invalid('query text must be a string');
    const mode = opts.mode ?? DEFAULT_MODE;
    if (!SEARCH_MODES.includes(mode)) throw invalid(`unknown search mode "${mode}"`);
    const k = opts.topK ?? 10;
    if (!Number.isInteger(k) || k <= 0) throw invalid('top-k must be a positive integer');
    const rerank = opts.rerank === undefined ? await this.defaultReranker() : opts.rerank;
    const first = { rm3: opts.rm3 };
    if (!rerank) return this.firstStage(query, mode, k, first);
    const depth = opts.rerankDepth ?? 100;
    if (!Number.isInteger(depth) || depth <= 0) throw invalid('rerank depth must be a positive integer');
    const list = await this.firstStage(query, mode, Math.max(k, depth), first);
    if (list.length === 0) return [];
    const stats = await this.corpus();
    const reranked = await rerank.rerank(query, await this.candidates(query, list), this.rerankContext(stats.n, stats.avgdl));
    return reranked.slice(0, k);
  }

  private async defaultReranker(): Promise<Reranker | null> {
    if (this.defaultRerank === null) return null;
    // Loaded on first use: the classic weights are read from disk.
    this.classic ??= import('../rerank/classic.ts').then((m) => m.classicReranker());
    return this.classic;
  }
}
