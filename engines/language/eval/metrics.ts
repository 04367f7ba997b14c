// Ranking metrics as trec_eval computes them: nDCG@k with graded gains, recall@k over all judged relevant.

export function ndcgAt(ranking: readonly string[], judged: ReadonlyMap<string, number> | undefined, k: number): number {
  if (!judged || judged.size === 0) return 0;
  let dcg = 0;
  ranking.slice(0, k).forEach((id, i) => {
    dcg += (judged.get(id) ?? 0) / Math.log2(i + 2);
  });
  const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => {
    idcg += g / Math.log2(i + 2);
  });
  return idcg > 0 ? dcg / idcg : 0;
}

export function recallAt(ranking: readonly string[], judged: ReadonlyMap<string, number> | undefined, k: number): number {
  if (!judged || judged.size === 0) return 0;
  let found = 0;
  for (const id of ranking.slice(0, k)) if ((judged.get(id) ?? 0) > 0) found++;
  return found / judged.size;
}

export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}
