/**
 * The built-in model: a decoder-only transformer in the llama layout (RMSNorm, rotary
 * position embedding on adjacent pairs as llama.cpp's LLAMA rope type computes it, SwiGLU
 * feed-forward, output tied to the token embedding), written with TensorFlow.js so that its
 * gradients come from tfjs's autodiff. Weights are kept as [in, out] matrices (x·W).
 * Optional LoRA deltas (x·A·B·alpha/r) on the attention query and value projections.
 */
import type * as tfType from '@tensorflow/tfjs';

type Tf = typeof tfType;
type Tensor = tfType.Tensor;
type Variable = tfType.Variable;

export interface TransformerConfig {
  vocab: number;
  dim: number;
  layers: number;
  heads: number;
  ff: number;
  context: number;
  ropeBase: number;
  eps: number;
}

export interface LayerWeights {
  attnNorm: Variable;
  wq: Variable;
  wk: Variable;
  wv: Variable;
  wo: Variable;
  ffnNorm: Variable;
  wGate: Variable;
  wUp: Variable;
  wDown: Variable;
}

export interface Weights {
  embed: Variable;
  layers: LayerWeights[];
  outNorm: Variable;
}

/** LoRA factors per layer for the q and v projections: delta W = A·B · (alpha / rank). */
export interface LoraWeights {
  rank: number;
  alpha: number;
  layers: { qA: Variable; qB: Variable; vA: Variable; vB: Variable }[];
}

export function initWeights(tf: Tf, c: TransformerConfig, seed: number): Weights {
  let s = seed;
  const normal = (shape: number[], std: number): Variable => tf.variable(tf.randomNormal(shape, 0, std, 'float32', s++));
  const ones = (n: number): Variable => tf.variable(tf.ones([n]));
  // GPT-2 style init: residual output projections scaled down by sqrt(2·layers).
  const std = 0.02;
  const resid = std / Math.sqrt(2 * c.layers);
  return {
    embed: normal([c.vocab, c.dim], std),
    layers: Array.from({ length: c.layers }, () => ({
      attnNorm: ones(c.dim),
      wq: normal([c.dim, c.dim], std),
      wk: normal([c.dim, c.dim], std),
      wv: normal([c.dim, c.dim], std),
      wo: normal([c.dim, c.dim], resid),
      ffnNorm: ones(c.dim),
      wGate: normal([c.dim, c.ff], std),
      wUp: normal([c.dim, c.ff], std),
      wDown: normal([c.ff, c.dim], resid),
    })),
    outNorm: ones(c.dim),
  };
}

export function allVariables(w: Weights): Variable[] {
  return [w.embed, w.outNorm, ...w.layers.flatMap((l) => [l.attnNorm, l.wq, l.wk, l.wv, l.wo, l.ffnNorm, l.wGate, l.wUp, l.wDown])];
}

function rmsNorm(tf: Tf, x: Tensor, w: Tensor, eps: number): Tensor {
  const ms = tf.mean(tf.square(x), -1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(ms, eps))), w);
}

/**
 * Rotary tables for positions 0..T-1, each angle θ_j = pos · base^(−2j/hd) repeated for both
 * members of pair j ([1, T, 1, hd]), and the pair-swap matrix P with (x·P)[2j] = −x[2j+1],
 * (x·P)[2j+1] = x[2j]. Rotation is then x·cos + (x·P)·sin: two multiplies and one small
 * matMul, much cheaper in tfjs than splitting and re-stacking the pairs.
 */
function ropeTables(tf: Tf, t: number, hd: number, base: number): { cos: Tensor; sin: Tensor; swap: Tensor } {
  const cos = new Float32Array(t * hd);
  const sin = new Float32Array(t * hd);
  for (let p = 0; p < t; p++) {
    for (let j = 0; j < hd / 2; j++) {
      const a = p * Math.pow(base, (-2 * j) / hd);
      cos[p * hd + 2 * j] = cos[p * hd + 2 * j + 1] = Math.cos(a);
      sin[p * hd + 2 * j] = sin[p * hd + 2 * j + 1] = Math.sin(a);
    }
  }
  const swap = new Float32Array(hd * hd);
  for (let j = 0; j < hd / 2; j++) {
    swap[(2 * j + 1) * hd + 2 * j] = -1;
    swap[2 * j * hd + 2 * j + 1] = 1;
  }
  return { cos: tf.tensor4d(cos, [1, t, 1, hd]), sin: tf.tensor4d(sin, [1, t, 1, hd]), swap: tf.tensor2d(swap, [hd, hd]) };
}

/** Rotates adjacent pairs (x[2j], x[2j+1]) of each head, as llama.cpp's LLAMA rope type: x is [B, T, H, hd]. */
function rope(tf: Tf, x: Tensor, r: { cos: Tensor; sin: Tensor; swap: Tensor }): Tensor {
  const [b, t, h, hd] = x.shape;
  const swapped = tf.reshape(tf.matMul(tf.reshape(x, [b * t * h, hd]), r.swap), [b, t, h, hd]);
  return tf.add(tf.mul(x, r.cos), tf.mul(swapped, r.sin));
}

function project(tf: Tf, x: Tensor, w: Tensor, lora?: { a: Tensor; b: Tensor; scale: number }): Tensor {
  const y = tf.matMul(x, w);
  if (!lora) return y;
  return tf.add(y, tf.mul(tf.matMul(tf.matMul(x, lora.a), lora.b), lora.scale));
}

/** Logits [B, T, vocab] for token ids [B, T]. */
export function forward(tf: Tf, c: TransformerConfig, w: Weights, ids: Tensor, lora?: LoraWeights): Tensor {
  const [b, t] = ids.shape;
  const hd = c.dim / c.heads;
  // Embedding lookup as one-hot · E: tfjs's wasm backend has no gradient kernel for gather.
  const oneHot = tf.oneHot(tf.reshape(ids, [b * t]), c.vocab).toFloat();
  // The residual stream stays 2-D [B·T, dim]: tfjs does not reduce the gradient of a
  // batched matMul against a shared 2-D weight.
  let x = tf.matMul(oneHot, w.embed);
  const tables = ropeTables(tf, t, hd, c.ropeBase);
  const mask = tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([t, t]), -1, 0)), -1e9);
  const scale = lora ? lora.alpha / lora.rank : 0;
  w.layers.forEach((l, i) => {
    const lo = lora?.layers[i];
    const h = rmsNorm(tf, x, l.attnNorm, c.eps);
    const heads = (m: Tensor): Tensor => tf.reshape(m, [b, t, c.heads, hd]);
    const q = rope(tf, heads(project(tf, h, l.wq, lo && { a: lo.qA, b: lo.qB, scale })), tables);
    const k = rope(tf, heads(project(tf, h, l.wk)), tables);
    const v = heads(project(tf, h, l.wv, lo && { a: lo.vA, b: lo.vB, scale }));
    const qh = tf.transpose(q, [0, 2, 1, 3]);
    const kh = tf.transpose(k, [0, 2, 1, 3]);
    const vh = tf.transpose(v, [0, 2, 1, 3]);
    const att = tf.softmax(tf.add(tf.div(tf.matMul(qh, kh, false, true), Math.sqrt(hd)), mask));
    const o = tf.reshape(tf.transpose(tf.matMul(att, vh), [0, 2, 1, 3]), [b * t, c.dim]);
    x = tf.add(x, tf.matMul(o, l.wo));
    const h2 = rmsNorm(tf, x, l.ffnNorm, c.eps);
    const gate = tf.matMul(h2, l.wGate);
    const ffn = tf.matMul(tf.mul(tf.mul(gate, tf.sigmoid(gate)), tf.matMul(h2, l.wUp)), l.wDown);
    x = tf.add(x, ffn);
  });
  const out = rmsNorm(tf, x, w.outNorm, c.eps);
  return tf.reshape(tf.matMul(out, w.embed, false, true), [b, t, c.vocab]);
}

/** Mean next-token cross-entropy of `ids` [B, T+1] (inputs are the first T, targets the last T). */
export function lossOf(tf: Tf, c: TransformerConfig, w: Weights, ids: Tensor, lora?: LoraWeights, weights?: Tensor): Tensor {
  const [b, t1] = ids.shape;
  const t = t1 - 1;
  const inputs = tf.slice(ids, [0, 0], [b, t]);
  const targets = tf.reshape(tf.slice(ids, [0, 1], [b, t]), [b * t]);
  const logits = tf.reshape(forward(tf, c, w, inputs, lora), [b * t, c.vocab]);
  const logp = tf.logSoftmax(logits);
  const picked = tf.sum(tf.mul(logp, tf.oneHot(targets, c.vocab).toFloat()), -1);
  if (!weights) return tf.neg(tf.mean(picked));
  const wt = tf.reshape(weights, [b * t]);
  return tf.div(tf.neg(tf.sum(tf.mul(picked, wt))), tf.maximum(tf.sum(wt), 1));
}
