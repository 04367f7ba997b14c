/**
 * Query-document features for the classic reranker, each computed from the texts and the
 * index's statistics only (no model): lexical match strength, title match, coverage of the
 * query's informative terms, term proximity, phrase (bigram) matches, dense similarity, and
 * similarity to the pseudo-relevant centroid of the first stage's best documents, BM25 of an
 * RM3-style query expanded with that centroid's strongest terms, and BM25 of the query as
 * written (the first stage may have ranked by an expanded query). Terms come from the
 * index's analyzer (text/analyzer.ts), so that document frequencies from the index match.
 * None of them names a collection: each is a ratio or a similarity that means the same on
 * any corpus, which is what lets weights learned on one set of queries carry to others.
 */
import { cosine } from '../embed/hashing.ts';
import { DEFAULT_BM25, idf } from '../retrieval/bm25.ts';
import { indexedText, type Candidate, type RerankContext } from '../retrieval/candidates.ts';
import { analyze } from '../text/analyzer.ts';
import { termCounts } from '../text/tokenize.ts';

export const FEATURE_NAMES = [
  'first_stage',
  'rank_discount',
  'idf_coverage',
  'title_coverage',
  'proximity',
  'bigrams',
  'dense',
  'prf',
  'rm3',
  'bm25_query',
  'latent',
] as const;

export const FEATURE_COUNT = FEATURE_NAMES.length;

/** Pseudo-relevance feedback depth: the first stage's best documents taken as relevant. */
const PRF_DEPTH = 5;
/** Expansion terms added to the query for the RM3-style feature. */
const EXPANSION_TERMS = 20;

function tfidfVector(counts: ReadonlyMap<string, number>, weight: (t: string) => number): Map<string, number> {
  const v = new Map<string, number>();
  let norm = 0;
  for (const [t, tf] of counts) {
    const w = (1 + Math.log(tf)) * weight(t);
    v.set(t, w);
    norm += w * w;
  }
  norm = Math.sqrt(norm) || 1;
  for (const [t, w] of v) v.set(t, w / norm);
  return v;
}

function sparseDot(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) dot += w * (large.get(t) ?? 0);
  return dot;
}

/** Smallest distance (in index terms) between occurrences of two terms, or Infinity. */
function minDistance(positions: ReadonlyMap<string, number[]>, a: string, b: string): number {
  const pa = positions.get(a);
  const pb = positions.get(b);
  if (!pa || !pb) return Infinity;
  let best = Infinity;
  let i = 0;
  let j = 0;
  while (i < pa.length && j < pb.length) {
    best = Math.min(best, Math.abs(pa[i] - pb[j]));
    if (pa[i] < pb[j]) i++;
    else j++;
  }
  return best;
}

/** One feature row per candidate, in candidate order; every feature lies in about [0, 1]. */
export async function extractFeatures(query: string, candidates: readonly Candidate[], ctx: RerankContext): Promise<number[][]> {
  const qTerms = analyze(query);
  const qCounts = termCounts(qTerms);
  const docTerms = candidates.map((c) => analyze(indexedText(c)));
  const vocab = new Set<string>(qCounts.keys());
  for (const list of docTerms.slice(0, PRF_DEPTH)) for (const t of list) vocab.add(t);
  const df = await ctx.df([...vocab]);
  const w = (t: string): number => idf(ctx.n, df.get(t) ?? 0);

  const qIdfTotal = [...qCounts.keys()].reduce((s, t) => s + w(t), 0) || 1;
  const qBigrams: [string, string][] = [];
  for (let i = 0; i + 1 < qTerms.length; i++) qBigrams.push([qTerms[i], qTerms[i + 1]]);
  const pairs: [string, string, number][] = [];
  const uniq = [...qCounts.keys()];
  for (let i = 0; i < uniq.length; i++) for (let j = i + 1; j < uniq.length; j++) pairs.push([uniq[i], uniq[j], w(uniq[i]) * w(uniq[j])]);
  const pairTotal = pairs.reduce((s, p) => s + p[2], 0) || 1;

  const docVectors = docTerms.map((list) => tfidfVector(termCounts(list), w));
  // The pseudo-relevant centroid, built from the first stage's best documents.
  const centroid = new Map<string, number>();
  for (const v of docVectors.slice(0, PRF_DEPTH)) for (const [t, x] of v) centroid.set(t, (centroid.get(t) ?? 0) + x);
  const cNorm = Math.sqrt([...centroid.values()].reduce((s, x) => s + x * x, 0)) || 1;
  for (const [t, x] of centroid) centroid.set(t, x / cNorm);

  // RM3-style expanded query: half the original terms, half the centroid's strongest terms.
  const expanded = new Map<string, number>();
  const qTotal = [...qCounts.values()].reduce((s, x) => s + x, 0) || 1;
  for (const [t, n] of qCounts) expanded.set(t, 0.5 * (n / qTotal));
  const strongest = [...centroid].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, EXPANSION_TERMS);
  const strongTotal = strongest.reduce((s, [, x]) => s + x, 0) || 1;
  for (const [t, x] of strongest) expanded.set(t, (expanded.get(t) ?? 0) + 0.5 * (x / strongTotal));
  const { k1, b } = DEFAULT_BM25;
  const docCounts = docTerms.map((list) => termCounts(list));
  const bm25Of = (weights: ReadonlyMap<string, number>): number[] =>
    docTerms.map((list, k) => {
      const counts = docCounts[k];
      const norm = 1 - b + (b * list.length) / (ctx.avgdl || 1);
      let s = 0;
      for (const [t, weight] of weights) {
        const tf = counts.get(t) ?? 0;
        if (tf) s += weight * w(t) * ((tf * (k1 + 1)) / (tf + k1 * norm));
      }
      return s;
    });
  const rm3 = bm25Of(expanded);
  const rm3Top = Math.max(...rm3, 1e-9);
  const plain = bm25Of(qCounts);
  const plainTop = Math.max(...plain, 1e-9);

  const [qVec, ...dVecs] = await ctx.embed([query, ...candidates.map(indexedText)]);
  // Without an index (the rerank API's plain lists) there is no latent space: the feature is 0.
  const latent = ctx.latent ? await ctx.latent(query, candidates.map((c) => c.doc_id)) : candidates.map(() => 0);
  const top = Math.max(...candidates.map((c) => c.score), 1e-9);

  return candidates.map((c, k) => {
    const list = docTerms[k];
    const present = new Set(list);
    const positions = new Map<string, number[]>();
    list.forEach((t, i) => {
      if (qCounts.has(t)) {
        const arr = positions.get(t) ?? [];
        arr.push(i);
        positions.set(t, arr);
      }
    });
    const titleTerms = new Set(analyze(c.title));
    let coverage = 0;
    let titleCoverage = 0;
    for (const t of qCounts.keys()) {
      if (present.has(t)) coverage += w(t);
      if (titleTerms.has(t)) titleCoverage += w(t);
    }
    let proximity = 0;
    for (const [a, b, weight] of pairs) proximity += weight / (1 + Math.max(0, minDistance(positions, a, b) - 1));
    let bigrams = 0;
    for (const [a, b] of qBigrams) {
      const pa = positions.get(a);
      const pb = new Set(positions.get(b) ?? []);
      if (pa?.some((p) => pb.has(p + 1))) bigrams++;
    }
    return [
      c.score / top,
      1 / Math.log2(c.rank + 2),
      coverage / qIdfTotal,
      titleCoverage / qIdfTotal,
      proximity / pairTotal,
      qBigrams.length ? bigrams / qBigrams.length : 0,
      Math.max(0, cosine(qVec, dVecs[k])),
      Math.max(0, sparseDot(docVectors[k], centroid)),
      rm3[k] / rm3Top,
      plain[k] / plainTop,
      Math.max(0, latent[k]),
    ];
  });
}
