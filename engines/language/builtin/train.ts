/**
 * Trains the built-in model from scratch: learns the tokenizer on the corpus, then the
 * transformer with Adam (linear warm-up, cosine decay, gradient clipping) on random windows
 * of the token stream, and writes the GGUF file. Reproducible: same corpus, options and seed
 * give the same file.
 *
 * @example await trainBuiltinModel({ out: 'engines/language/models/lattice-tiny.gguf', steps: 500 })
 */
import { writeFileSync } from 'node:fs';
import type * as tfType from '@tensorflow/tfjs';
import { buildCorpus } from './corpus.ts';
import { modelGguf } from './export.ts';
import { mulberry32 as seededRandom } from '../../quantum/sampling.ts';
import { loadTf } from './tf.ts';
import { BOS, createTokenizer, trainVocabulary } from './tokenizer.ts';
import { allVariables, initWeights, lossOf } from './transformer.ts';
import type { TransformerConfig } from './transformer.ts';

export interface TrainProgress {
  step: number;
  steps: number;
  loss: number;
  learningRate: number;
  heldOutLoss?: number;
}

export interface TrainOptions {
  out: string;
  steps?: number;
  batchSize?: number;
  sequence?: number;
  learningRate?: number;
  seed?: number;
  config?: Partial<TransformerConfig>;
  corpus?: string[];
  onProgress?: (p: TrainProgress) => void;
}

// Sized for two shared CPU cores and minutes of training: about 0.2 M parameters.
export const DEFAULT_CONFIG: TransformerConfig = { vocab: 768, dim: 64, layers: 2, heads: 4, ff: 192, context: 256, ropeBase: 10000, eps: 1e-5 };

export function cosineRate(step: number, steps: number, peak: number): number {
  const warm = Math.max(1, Math.floor(steps * 0.05));
  if (step < warm) return (peak * (step + 1)) / warm;
  const p = (step - warm) / Math.max(1, steps - warm);
  return peak * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * p)));
}

export async function trainBuiltinModel(opts: TrainOptions): Promise<{ finalLoss: number; heldOutLoss: number; bytes: number }> {
  const tf = await loadTf();
  const steps = opts.steps ?? 500;
  const batch = opts.batchSize ?? 6;
  const seq = opts.sequence ?? 96;
  const peak = opts.learningRate ?? 3e-3;
  const seed = opts.seed ?? 1234;
  const c: TransformerConfig = { ...DEFAULT_CONFIG, ...opts.config };
  const docs = opts.corpus ?? buildCorpus().documents;
  const vocab = trainVocabulary(docs.join('\n'), c.vocab);
  c.vocab = vocab.tokens.length;
  const tok = createTokenizer(vocab);
  // Every document opens with BOS, as node-llama-cpp's chat wrappers open a context with it.
  const stream = Int32Array.from(docs.flatMap((d) => [BOS, ...tok.encode(d)]));
  // The last 5 % of the stream is held out to report generalisation, never trained on.
  const split = Math.floor(stream.length * 0.95);
  const rand = seededRandom(seed);
  const window = (lo: number, hi: number): number[] => {
    const start = lo + Math.floor(rand() * (hi - lo - seq - 1));
    return Array.from(stream.subarray(start, start + seq + 1));
  };
  const weights = initWeights(tf, c, seed);
  const vars = allVariables(weights);
  const optimizer = tf.train.adam(peak, 0.9, 0.95);
  const heldOut = tf.tensor2d(Array.from({ length: batch }, () => window(split, stream.length)), [batch, seq + 1], 'int32');
  const evalHeldOut = (): number => tf.tidy(() => lossOf(tf, c, weights, heldOut).dataSync()[0]);
  let loss = NaN;
  for (let step = 0; step < steps; step++) {
    const lr = cosineRate(step, steps, peak);
    (optimizer as unknown as { learningRate: number }).learningRate = lr;
    const ids = tf.tensor2d(Array.from({ length: batch }, () => window(0, split)), [batch, seq + 1], 'int32');
    loss = tf.tidy(() => {
      const { value, grads } = tf.variableGrads(() => lossOf(tf, c, weights, ids) as tfType.Scalar, vars);
      // Clip the global gradient norm at 1 to keep early steps stable.
      const norm = Math.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g)))).dataSync()[0]);
      const f = norm > 1 ? 1 / norm : 1;
      optimizer.applyGradients(Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, tf.mul(g, f)])));
      return value.dataSync()[0];
    });
    ids.dispose();
    const last = step === steps - 1;
    opts.onProgress?.({ step: step + 1, steps, loss, learningRate: lr, ...(last || (step + 1) % 50 === 0 ? { heldOutLoss: evalHeldOut() } : {}) });
  }
  const heldOutLoss = evalHeldOut();
  const file = modelGguf(tf, c, weights, vocab, 'lattice-tiny');
  writeFileSync(opts.out, file);
  heldOut.dispose();
  for (const v of vars) v.dispose();
  return { finalLoss: loss, heldOutLoss, bytes: file.length };
}
