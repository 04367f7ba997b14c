/**
 * LoRA fine-tuning of the built-in model from supervised pairs, with TensorFlow.js autodiff:
 * the base weights stay frozen; low-rank factors on the attention query and value
 * projections of every layer learn the completions (loss on completion tokens only). Runs
 * with the spec's knobs (rank, alpha, epochs, learning rate, batch size), reports progress
 * per step, measures held-out loss before and after, and writes a GGUF LoRA adapter that the
 * local provider applies per request.
 *
 * @example
 * await trainLora({ base: BUILTIN_MODEL_PATH, out: 'adapter.gguf', pairs, rank: 8, alpha: 16, epochs: 3 });
 */
import { writeFileSync } from 'node:fs';
import type * as tfType from '@tensorflow/tfjs';
import { LanguageError } from '../errors.ts';
import { chatTurn } from './corpus.ts';
import { loraGguf } from './export.ts';
import { loadBuiltin } from './load.ts';
import { mulberry32 as seededRandom } from '../../quantum/sampling.ts';
import { loadTf } from './tf.ts';
import { BOS, IM_END } from './tokenizer.ts';
import type { Tokenizer } from './tokenizer.ts';
import { lossOf } from './transformer.ts';
import type { LoraWeights, TransformerConfig, Weights } from './transformer.ts';

export interface TrainingPair {
  prompt: string;
  completion: string;
  system?: string;
}

export interface LoraProgress {
  epoch: number;
  epochs: number;
  step: number;
  steps: number;
  loss: number;
  learningRate: number;
}

export interface LoraOptions {
  base: string;
  out: string;
  pairs: TrainingPair[];
  /** Pairs to measure held-out loss on (default: none; the loss is then over `pairs`). */
  heldOut?: TrainingPair[];
  rank?: number;
  alpha?: number;
  epochs?: number;
  learningRate?: number;
  batchSize?: number;
  seed?: number;
  onProgress?: (p: LoraProgress) => void;
}

export interface LoraResult {
  heldOutLossBefore: number;
  heldOutLossAfter: number;
  steps: number;
  bytes: number;
}

/** Token ids of one pair and a 0/1 weight per predicted position (1 on the completion). */
function encodePair(tok: Tokenizer, p: TrainingPair): { ids: number[]; mask: number[] } {
  const prompt = chatTurn(p.prompt, '', p.system).replace(/<\|im_end\|>\n$/, '');
  const promptIds = [BOS, ...tok.encode(prompt)];
  const completion = [...tok.encode(p.completion), IM_END];
  const ids = [...promptIds, ...completion];
  // mask[i] weighs the prediction of ids[i + 1].
  const mask = ids.slice(1).map((_, i) => (i + 1 >= promptIds.length ? 1 : 0));
  return { ids, mask };
}

function checkOptions(o: LoraOptions): void {
  if (!Array.isArray(o.pairs) || o.pairs.length === 0) throw new LanguageError('invalid_request', 'LoRA training needs at least one pair');
  o.pairs.forEach((p, i) => {
    if (typeof p?.prompt !== 'string' || typeof p.completion !== 'string' || !p.prompt || !p.completion) {
      throw new LanguageError('invalid_request', `pair ${i} needs a non-empty prompt and completion`);
    }
  });
  const positiveInt = (v: number | undefined, name: string): void => {
    if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw new LanguageError('invalid_request', `${name} must be a positive integer`);
  };
  positiveInt(o.rank, 'lora_r');
  positiveInt(o.epochs, 'epochs');
  positiveInt(o.batchSize, 'batch_size');
  if (o.alpha !== undefined && !(o.alpha > 0)) throw new LanguageError('invalid_request', 'lora_alpha must be positive');
  if (o.learningRate !== undefined && !(o.learningRate > 0 && o.learningRate < 1)) throw new LanguageError('invalid_request', 'learning_rate must be in (0, 1)');
}

export async function trainLora(o: LoraOptions): Promise<LoraResult> {
  checkOptions(o);
  const tf = await loadTf();
  const { config, weights, tokenizer } = loadBuiltin(tf, o.base);
  const rank = o.rank ?? 8;
  const alpha = o.alpha ?? 2 * rank;
  const epochs = o.epochs ?? 3;
  const lr = o.learningRate ?? 1e-2;
  const batchSize = o.batchSize ?? 4;
  const rand = seededRandom(o.seed ?? 7);
  const encoded = o.pairs.map((p) => encodePair(tokenizer, p));
  const held = (o.heldOut?.length ? o.heldOut : o.pairs).map((p) => encodePair(tokenizer, p));
  for (const e of [...encoded, ...held]) {
    if (e.ids.length > config.context) throw new LanguageError('context_length_exceeded', `a training pair is ${e.ids.length} tokens; the model's context is ${config.context}`);
  }
  let seed = o.seed ?? 7;
  // Standard LoRA init: A small random, B zero, so training starts from the base model.
  const lora: LoraWeights = {
    rank,
    alpha,
    layers: weights.layers.map(() => ({
      qA: tf.variable(tf.randomNormal([config.dim, rank], 0, 1 / Math.sqrt(config.dim), 'float32', seed++)),
      qB: tf.variable(tf.zeros([rank, config.dim])),
      vA: tf.variable(tf.randomNormal([config.dim, rank], 0, 1 / Math.sqrt(config.dim), 'float32', seed++)),
      vB: tf.variable(tf.zeros([rank, config.dim])),
    })),
  };
  const vars = lora.layers.flatMap((l) => [l.qA, l.qB, l.vA, l.vB]);
  const heldOutLossBefore = batchLoss(tf, config, weights, held, lora);
  const optimizer = tf.train.adam(lr);
  const perEpoch = Math.ceil(encoded.length / batchSize);
  const steps = perEpoch * epochs;
  let step = 0;
  for (let epoch = 1; epoch <= epochs; epoch++) {
    const order = encoded.map((_, i) => i).sort(() => rand() - 0.5);
    for (let b = 0; b < perEpoch; b++) {
      const batch = order.slice(b * batchSize, (b + 1) * batchSize).map((i) => encoded[i]);
      const loss = tf.tidy(() => {
        const { ids, mask } = padBatch(tf, batch);
        const { value, grads } = tf.variableGrads(() => lossOf(tf, config, weights, ids, lora, mask) as tfType.Scalar, vars);
        optimizer.applyGradients(grads as Record<string, tfType.Variable>);
        return value.dataSync()[0];
      });
      step++;
      o.onProgress?.({ epoch, epochs, step, steps, loss, learningRate: lr });
    }
  }
  const heldOutLossAfter = batchLoss(tf, config, weights, held, lora);
  const file = loraGguf(tf, lora, 'lattice-lora');
  writeFileSync(o.out, file);
  for (const v of [...vars, weights.embed, weights.outNorm, ...weights.layers.flatMap((l) => Object.values(l))]) v.dispose();
  return { heldOutLossBefore, heldOutLossAfter, steps, bytes: file.length };
}

function padBatch(tf: typeof tfType, batch: { ids: number[]; mask: number[] }[]): { ids: tfType.Tensor; mask: tfType.Tensor } {
  const len = Math.max(...batch.map((e) => e.ids.length));
  const ids = batch.map((e) => [...e.ids, ...new Array<number>(len - e.ids.length).fill(IM_END)]);
  const mask = batch.map((e) => [...e.mask, ...new Array<number>(len - e.ids.length).fill(0)]);
  return { ids: tf.tensor2d(ids, [batch.length, len], 'int32'), mask: tf.tensor2d(mask, [batch.length, len - 1]) };
}

function batchLoss(tf: typeof tfType, c: TransformerConfig, w: Weights, data: { ids: number[]; mask: number[] }[], lora: LoraWeights): number {
  return tf.tidy(() => {
    const { ids, mask } = padBatch(tf, data);
    return lossOf(tf, c, w, ids, lora, mask).dataSync()[0];
  });
}
