/**
 * The classic embedding that needs no model: signed feature hashing of the retrieval
 * tokenizer's stems (weight 1) and of adjacent stem pairs (weight 0.5), with sublinear term
 * frequency (1 + ln tf), L2-normalised. Dimensions: HASH_DIMENSIONS (512). Two texts that
 * share stems get a positive cosine; unrelated texts get about 0.
 *
 * @example hashEmbed(['boundary layer flow'])[0].length // 512
 */
import { terms } from '../text/tokenize.ts';

export const HASH_DIMENSIONS = 512;

// FNV-1a, 32 bit: fast, stable across runs and platforms, good enough spread for hashing tricks.
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function addFeature(vec: Float64Array, feature: string, weight: number): void {
  const h = fnv1a(feature);
  // The top bit picks the sign so that collisions cancel in expectation instead of piling up.
  vec[h % vec.length] += h & 0x80000000 ? -weight : weight;
}

/** Embeds one text into a unit vector (all zeros for a text with no index terms). */
export function hashEmbedOne(text: string, dimensions = HASH_DIMENSIONS): Float32Array {
  return hashEmbedTerms(terms(text), dimensions);
}

/**
 * The embedding of a text from its stems (`terms(text)`), for a caller that tokenizes anyway:
 * tokenizing is three quarters of an embedding's time.
 */
export function hashEmbedTerms(list: readonly string[], dimensions = HASH_DIMENSIONS): Float32Array {
  const counts = new Map<string, number>();
  for (const t of list) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (let i = 0; i + 1 < list.length; i++) {
    const key = `${list[i]} ${list[i + 1]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const vec = new Float64Array(dimensions);
  for (const [feature, tf] of counts) {
    const weight = (feature.includes(' ') ? 0.5 : 1) * (1 + Math.log(tf));
    addFeature(vec, feature, weight);
  }
  let norm = 0;
  for (const v of vec) norm += v * v;
  norm = Math.sqrt(norm);
  const out = new Float32Array(dimensions);
  if (norm > 0) for (let i = 0; i < dimensions; i++) out[i] = vec[i] / norm;
  return out;
}

export function hashEmbed(texts: readonly string[], dimensions = HASH_DIMENSIONS): Float32Array[] {
  return texts.map((t) => hashEmbedOne(t, dimensions));
}

export function cosine(a: Float32Array | number[], b: Float32Array | number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
