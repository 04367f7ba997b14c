/**
 * A latent semantic space fitted on an index's own documents (latent semantic indexing,
 * Deerwester et al. 1990): the documents' tf-idf matrix D (rows unit length, terms found in at
 * least two documents) is factored by a truncated SVD, D ≈ U Σ Vᵀ, with `dims` dimensions.
 * A document is U Σ (= D V), a query the sum of its terms' rows of V weighted by idf, and the
 * score is their cosine. Documents that share no word with the query but share its
 * neighbourhood of words ("lift" and "airfoil", "heat" and "temperature") score, which BM25
 * and the hashing embedding cannot do. It needs no model and no training data: only the texts
 * the index already holds.
 *
 * The SVD is the randomized one of Halko, Martinsson and Tropp (2011): a Gaussian sketch of
 * dims + 10 columns, two power iterations, then the exact eigen-decomposition (Jacobi) of the
 * small projected matrix. It costs a few passes over the postings, so it scales with their
 * number, not with the square of the collection; above FIT_LIMIT documents it is fitted on an
 * evenly spaced sample and every document is then projected into it. Memory: `dims` 32-bit
 * floats per document and per kept term (0.8 kB each at 200 dimensions: 80 MB for 100,000
 * documents), held by the process that searches.
 *
 * 200 dimensions were chosen on the training half of Cranfield's queries over 100 and 200
 * (README, "Retrieval"); fixed seeds make the fit deterministic.
 */
import { idf } from './bm25.ts';

export const DEFAULT_LATENT_DIMS = 200;
/** Most documents the factorisation is fitted on; the rest are projected into it. */
export const FIT_LIMIT = 20_000;
/** Most terms the space keeps (the most frequent): bounds its memory on large vocabularies. */
export const TERM_LIMIT = 50_000;
const OVERSAMPLE = 10;
const POWER_ITERATIONS = 2;

export interface LatentDoc {
  doc_id: string;
  terms: ReadonlyMap<string, number>;
}

export interface LatentModel {
  dims: number;
  /** term → row of V (length dims). */
  termVectors: Map<string, Float32Array>;
  /** term → idf over the fitted collection. */
  idf: Map<string, number>;
  ids: string[];
  /** One unit vector per document (U Σ, normalised), in `ids` order. */
  docVectors: Float32Array[];
}

// mulberry32: a small deterministic generator, so two fits of the same documents agree.
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

type SparseRow = { cols: Int32Array; vals: Float64Array };

/** Orthonormalises a set of columns in place (modified Gram-Schmidt; `passes` 2 re-orthogonalises for the final basis). */
function orthonormalise(cols: Float64Array[], passes = 1): void {
  for (let pass = 0; pass < passes; pass++) {
    for (let k = 0; k < cols.length; k++) {
      const c = cols[k];
      for (let l = 0; l < k; l++) {
        const o = cols[l];
        let d = 0;
        for (let i = 0; i < c.length; i++) d += c[i] * o[i];
        for (let i = 0; i < c.length; i++) c[i] -= d * o[i];
      }
      let n = 0;
      for (let i = 0; i < c.length; i++) n += c[i] * c[i];
      n = Math.sqrt(n);
      if (n > 1e-12) for (let i = 0; i < c.length; i++) c[i] /= n;
      else c.fill(0);
    }
  }
}

/** Eigen-decomposition of a symmetric matrix (cyclic Jacobi): eigenvalues and eigenvectors as columns, largest first. */
export function symmetricEigen(a: Float64Array[], sweeps = 60): { values: number[]; vectors: Float64Array[] } {
  const n = a.length;
  const m = a.map((r) => Float64Array.from(r));
  const v = Array.from({ length: n }, (_, i) => {
    const r = new Float64Array(n);
    r[i] = 1;
    return r;
  });
  let scale = 0;
  for (let p = 0; p < n; p++) for (let q = 0; q < n; q++) scale += m[p][q] * m[p][q];
  for (let sweep = 0; sweep < sweeps; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p][q] * m[p][q];
    if (off <= 1e-24 * scale) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p][q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (m[q][q] - m[p][p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = m[k][p];
          const mkq = m[k][q];
          m[k][p] = c * mkp - s * mkq;
          m[k][q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = m[p][k];
          const mqk = m[q][k];
          m[p][k] = c * mpk - s * mqk;
          m[q][k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k][p];
          const vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => m[y][y] - m[x][x]);
  return {
    values: order.map((i) => m[i][i]),
    vectors: order.map((i) => Float64Array.from(v, (row) => row[i])),
  };
}

/** Fits the latent space on `docs` (term frequencies of each document's indexed text). */
export function fitLatent(docs: readonly LatentDoc[], dims = DEFAULT_LATENT_DIMS): LatentModel | null {
  const n = docs.length;
  if (n < 2) return null;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.terms.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  // Terms in one document only carry no co-occurrence: leave them out of the space.
  const vocab = [...df.keys()]
    .filter((t) => (df.get(t) ?? 0) >= 2)
    .sort((a, b) => (df.get(b) ?? 0) - (df.get(a) ?? 0) || (a < b ? -1 : 1))
    .slice(0, TERM_LIMIT)
    .sort();
  if (vocab.length < 2) return null;
  const col = new Map(vocab.map((t, j) => [t, j]));
  const weights = new Map(vocab.map((t) => [t, idf(n, df.get(t) ?? 0)]));
  const rowOf = (terms: ReadonlyMap<string, number>): SparseRow => {
    const cols: number[] = [];
    const vals: number[] = [];
    let norm = 0;
    for (const [t, tf] of terms) {
      const j = col.get(t);
      if (j === undefined || tf <= 0) continue;
      const w = (1 + Math.log(tf)) * (weights.get(t) ?? 0);
      cols.push(j);
      vals.push(w);
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    return { cols: Int32Array.from(cols), vals: Float64Array.from(vals, (x) => x / norm) };
  };
  const step = n > FIT_LIMIT ? n / FIT_LIMIT : 1;
  const sample: SparseRow[] = [];
  for (let i = 0; i < n && sample.length < FIT_LIMIT; i = Math.floor((sample.length + 1) * step)) sample.push(rowOf(docs[i].terms));
  const rows = sample.length;
  const width = Math.min(dims + OVERSAMPLE, rows, vocab.length);
  const V = vocab.length;

  // Y = D Ω, then (D Dᵀ) Y twice, orthonormalised each time.
  const rand = random(0x5eed);
  const omega = Array.from({ length: width }, () => Float64Array.from({ length: V }, () => gaussian(rand)));
  const times = (x: Float64Array[]): Float64Array[] =>
    x.map((c) => {
      const out = new Float64Array(rows);
      for (let i = 0; i < rows; i++) {
        const r = sample[i];
        let s = 0;
        for (let k = 0; k < r.cols.length; k++) s += r.vals[k] * c[r.cols[k]];
        out[i] = s;
      }
      return out;
    });
  const timesT = (y: Float64Array[]): Float64Array[] =>
    y.map((c) => {
      const out = new Float64Array(V);
      for (let i = 0; i < rows; i++) {
        const r = sample[i];
        const ci = c[i];
        if (ci === 0) continue;
        for (let k = 0; k < r.cols.length; k++) out[r.cols[k]] += r.vals[k] * ci;
      }
      return out;
    });
  let q = times(omega);
  orthonormalise(q);
  for (let it = 0; it < POWER_ITERATIONS; it++) {
    q = times(timesT(q));
    orthonormalise(q, it === POWER_ITERATIONS - 1 ? 2 : 1);
  }
  // B = Qᵀ D (width×V, kept as its rows Bᵀ columns); B Bᵀ = W Λ Wᵀ gives D's top singular pairs.
  const b = timesT(q);
  const gram = b.map(() => new Float64Array(width));
  for (let r = 0; r < width; r++) {
    for (let c = r; c < width; c++) {
      const x = b[r];
      const y = b[c];
      let s = 0;
      for (let j = 0; j < V; j++) s += x[j] * y[j];
      gram[r][c] = s;
      gram[c][r] = s;
    }
  }
  const { values, vectors } = symmetricEigen(gram);
  const k = Math.min(dims, values.filter((x) => x > 1e-10).length);
  if (k === 0) return null;
  // V_k = Bᵀ W_k Σ_k⁻¹ (V×k): one row per term (built a dimension at a time, contiguously).
  const byDim: Float64Array[] = [];
  for (let c = 0; c < k; c++) {
    const out = new Float64Array(V);
    const sigma = Math.sqrt(values[c]);
    for (let r = 0; r < width; r++) {
      const w = vectors[c][r] / sigma;
      const row = b[r];
      for (let j = 0; j < V; j++) out[j] += w * row[j];
    }
    byDim.push(out);
  }
  const termVectors = new Map<string, Float32Array>();
  for (let j = 0; j < V; j++) termVectors.set(vocab[j], Float32Array.from(byDim, (d) => d[j]));
  const model: LatentModel = { dims: k, termVectors, idf: weights, ids: [], docVectors: [] };
  // Every document, sampled or not, is projected the same way: D V_k.
  for (const d of docs) {
    const r = rowOf(d.terms);
    const v = new Float64Array(k);
    for (let x = 0; x < r.cols.length; x++) {
      const tv = termVectors.get(vocab[r.cols[x]])!;
      for (let c = 0; c < k; c++) v[c] += r.vals[x] * tv[c];
    }
    model.ids.push(d.doc_id);
    model.docVectors.push(Float32Array.from(unit(v)));
  }
  return model;
}

function unit(v: Float64Array): Float64Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

/** A query's unit vector in the space: its terms' rows weighted by query weight and idf (zeros when none is known). */
export function latentQuery(model: LatentModel, query: ReadonlyMap<string, number>): Float64Array {
  const v = new Float64Array(model.dims);
  for (const [t, c] of query) {
    const tv = model.termVectors.get(t);
    if (!tv) continue;
    const w = c * (model.idf.get(t) ?? 0);
    for (let k = 0; k < model.dims; k++) v[k] += w * tv[k];
  }
  return unit(v);
}

/** Cosine of the query with every document, in `model.ids` order. */
export function latentScores(model: LatentModel, query: ReadonlyMap<string, number>): Map<string, number> {
  const q = latentQuery(model, query);
  const out = new Map<string, number>();
  if (!q.some((x) => x !== 0)) return out;
  model.docVectors.forEach((d, i) => {
    let s = 0;
    for (let k = 0; k < q.length; k++) s += q[k] * d[k];
    out.set(model.ids[i], s);
  });
  return out;
}
