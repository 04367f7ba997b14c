/**
 * A linear learning-to-rank model trained pairwise (RankNet with a linear scorer): for every
 * pair of candidates of one query where one is judged more relevant, it minimises
 * log(1 + exp(-(s_i - s_j))) weighted by the difference in grade, with L2 regularisation.
 * The gradient of this loss is two lines, written out below; full-batch gradient descent
 * converges in a few hundred steps on a few hundred queries.
 */

export interface TrainingQuery {
  /** One feature row per candidate. */
  features: number[][];
  /** Judged grade per candidate (0 = not relevant). */
  gains: number[];
}

export interface LinearRanker {
  weights: number[];
}

export function scoreRow(model: LinearRanker, row: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < row.length; i++) s += model.weights[i] * row[i];
  return s;
}

export function trainLinearRanker(
  queries: readonly TrainingQuery[],
  opts: { steps?: number; learningRate?: number; l2?: number } = {},
): LinearRanker {
  const steps = opts.steps ?? 300;
  const lr = opts.learningRate ?? 0.5;
  const l2 = opts.l2 ?? 1e-3;
  const dim = queries.find((q) => q.features.length)?.features[0].length ?? 0;
  const pairs: { a: number[]; b: number[]; weight: number }[] = [];
  for (const q of queries) {
    for (let i = 0; i < q.gains.length; i++) {
      for (let j = 0; j < q.gains.length; j++) {
        if (q.gains[i] > q.gains[j]) pairs.push({ a: q.features[i], b: q.features[j], weight: q.gains[i] - q.gains[j] });
      }
    }
  }
  const totalWeight = pairs.reduce((s, p) => s + p.weight, 0) || 1;
  const weights = new Array<number>(dim).fill(0);
  weights[0] = 1; // start from the first stage's own ordering
  for (let step = 0; step < steps; step++) {
    const grad = weights.map((w) => l2 * w);
    for (const p of pairs) {
      let margin = 0;
      for (let k = 0; k < dim; k++) margin += weights[k] * (p.a[k] - p.b[k]);
      // d/dw log(1 + e^-m) = -sigmoid(-m) * (a - b)
      const g = (-p.weight / (1 + Math.exp(margin))) / totalWeight;
      for (let k = 0; k < dim; k++) grad[k] += g * (p.a[k] - p.b[k]);
    }
    for (let k = 0; k < dim; k++) weights[k] -= lr * grad[k];
  }
  return { weights };
}
