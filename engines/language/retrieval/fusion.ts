/**
 * Hybrid fusion of a lexical and a dense ranking: each list's scores are min-max normalised
 * over its own top candidates, then mixed convexly (a document missing from a list gets 0
 * there). On Cranfield this beats reciprocal-rank fusion because it keeps score margins.
 */
import type { Scored } from './bm25.ts';

function normalise(list: readonly Scored[]): Map<string, number> {
  const out = new Map<string, number>();
  if (list.length === 0) return out;
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of list) {
    lo = Math.min(lo, s.score);
    hi = Math.max(hi, s.score);
  }
  const span = hi - lo || 1;
  for (const s of list) out.set(s.doc_id, (s.score - lo) / span);
  return out;
}

/** `lexicalWeight` in [0, 1]: 1 is pure BM25, 0 pure dense. */
export function fuse(lexical: readonly Scored[], dense: readonly Scored[], lexicalWeight: number): Map<string, number> {
  const a = normalise(lexical);
  const b = normalise(dense);
  const out = new Map<string, number>();
  for (const id of new Set([...a.keys(), ...b.keys()])) {
    out.set(id, lexicalWeight * (a.get(id) ?? 0) + (1 - lexicalWeight) * (b.get(id) ?? 0));
  }
  return out;
}

/** Convex fusion of any number of lists, each min-max normalised over its own candidates; weights should sum to 1. */
export function fuseWeighted(lists: readonly { list: readonly Scored[]; weight: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const { list, weight } of lists) {
    if (weight === 0) continue;
    for (const [id, x] of normalise(list)) out.set(id, (out.get(id) ?? 0) + weight * x);
  }
  for (const { list } of lists) for (const s of list) if (!out.has(s.doc_id)) out.set(s.doc_id, 0);
  return out;
}

/** Reciprocal-rank fusion (Cormack et al. 2009), kept for comparison in the bench. */
export function reciprocalRankFusion(lists: readonly (readonly Scored[])[], k = 60): Map<string, number> {
  const out = new Map<string, number>();
  for (const list of lists) list.forEach((s, rank) => out.set(s.doc_id, (out.get(s.doc_id) ?? 0) + 1 / (k + rank + 1)));
  return out;
}
