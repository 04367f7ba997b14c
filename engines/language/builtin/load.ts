// Loads a built-in-format GGUF model (llama layout, F32) back into tfjs tensors and its tokenizer.
import type * as tfType from '@tensorflow/tfjs';
import { LanguageError } from '../errors.ts';
import { readGguf } from './gguf-read.ts';
import { createTokenizer } from './tokenizer.ts';
import type { Tokenizer } from './tokenizer.ts';
import type { TransformerConfig, Weights } from './transformer.ts';

type Tf = typeof tfType;

export function loadBuiltin(tf: Tf, path: string): { config: TransformerConfig; weights: Weights; tokenizer: Tokenizer } {
  const { metadata: m, tensors } = readGguf(path);
  if (m.get('general.architecture') !== 'llama' || m.get('tokenizer.ggml.model') !== 'llama') {
    throw new LanguageError('model_file_invalid', `${path} is not a llama-layout model with a SentencePiece vocabulary`);
  }
  const num = (k: string): number => {
    const v = m.get(k);
    if (typeof v !== 'number') throw new LanguageError('model_file_invalid', `${path} lacks ${k}`);
    return v;
  };
  const tokens = m.get('tokenizer.ggml.tokens') as string[];
  const config: TransformerConfig = {
    vocab: tokens.length,
    dim: num('llama.embedding_length'),
    layers: num('llama.block_count'),
    heads: num('llama.attention.head_count'),
    ff: num('llama.feed_forward_length'),
    context: num('llama.context_length'),
    ropeBase: num('llama.rope.freq_base'),
    eps: num('llama.attention.layer_norm_rms_epsilon'),
  };
  const get = (name: string): { shape: number[]; data: Float32Array } => {
    const t = tensors.get(name);
    if (!t) throw new LanguageError('model_file_invalid', `${path} lacks tensor ${name}`);
    return t;
  };
  // Frozen: LoRA trains only its own factors.
  const frozen = (t: tfType.Tensor): tfType.Variable => tf.variable(t, false);
  const vec = (name: string): tfType.Variable => frozen(tf.tensor1d(get(name).data));
  // ggml ne = [in, out] holds rows of length `in`: read as [out, in], transpose to [in, out].
  const mat = (name: string): tfType.Variable => {
    const t = get(name);
    return frozen(tf.tidy(() => tf.transpose(tf.tensor2d(t.data, [t.shape[1], t.shape[0]]))));
  };
  const embed = get('token_embd.weight');
  const weights: Weights = {
    embed: frozen(tf.tensor2d(embed.data, [config.vocab, config.dim])),
    layers: Array.from({ length: config.layers }, (_, i) => ({
      attnNorm: vec(`blk.${i}.attn_norm.weight`),
      wq: mat(`blk.${i}.attn_q.weight`),
      wk: mat(`blk.${i}.attn_k.weight`),
      wv: mat(`blk.${i}.attn_v.weight`),
      wo: mat(`blk.${i}.attn_output.weight`),
      ffnNorm: vec(`blk.${i}.ffn_norm.weight`),
      wGate: mat(`blk.${i}.ffn_gate.weight`),
      wUp: mat(`blk.${i}.ffn_up.weight`),
      wDown: mat(`blk.${i}.ffn_down.weight`),
    })),
    outNorm: vec('output_norm.weight'),
  };
  const tokenizer = createTokenizer({
    tokens,
    scores: m.get('tokenizer.ggml.scores') as number[],
    types: m.get('tokenizer.ggml.token_type') as number[],
  });
  return { config, weights, tokenizer };
}
