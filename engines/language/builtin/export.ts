/**
 * Writes the built-in model and its LoRA adapters as GGUF files that llama.cpp (through
 * node-llama-cpp) loads: llama architecture, F32 tensors, SentencePiece-style vocabulary,
 * and a ChatML chat template. Matrices kept as [in, out] here are stored transposed, as ggml
 * expects a weight of ne = [in, out] to hold rows of length `in`.
 */
import type * as tfType from '@tensorflow/tfjs';
import { encodeGguf } from './gguf.ts';
import type { GgufTensor, GgufValue } from './gguf.ts';
import { BOS, IM_END, UNK } from './tokenizer.ts';
import type { Vocabulary } from './tokenizer.ts';
import type { LoraWeights, TransformerConfig, Weights } from './transformer.ts';

export const CHAT_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

type Tf = typeof tfType;

function raw(t: tfType.Tensor): Float32Array {
  return t.dataSync() as Float32Array;
}

/** A weight [in, out] as a ggml tensor ne = [in, out] (rows of length `in`). */
function matrix(tf: Tf, name: string, w: tfType.Tensor): GgufTensor {
  const [rows, cols] = w.shape;
  const data = tf.tidy(() => raw(tf.transpose(w)));
  return { name, shape: [rows, cols], data: new Float32Array(data) };
}

function vector(name: string, w: tfType.Tensor): GgufTensor {
  return { name, shape: [w.shape[0]], data: new Float32Array(raw(w)) };
}

export function modelGguf(tf: Tf, c: TransformerConfig, w: Weights, vocab: Vocabulary, name: string): Buffer {
  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const metadata: Record<string, GgufValue> = {
    'general.architecture': { type: 'string', value: 'llama' },
    'general.name': { type: 'string', value: name },
    'general.file_type': u32(0),
    'llama.vocab_size': u32(c.vocab),
    'llama.context_length': u32(c.context),
    'llama.embedding_length': u32(c.dim),
    'llama.block_count': u32(c.layers),
    'llama.feed_forward_length': u32(c.ff),
    'llama.attention.head_count': u32(c.heads),
    'llama.attention.head_count_kv': u32(c.heads),
    'llama.attention.layer_norm_rms_epsilon': { type: 'f32', value: c.eps },
    'llama.rope.dimension_count': u32(c.dim / c.heads),
    'llama.rope.freq_base': { type: 'f32', value: c.ropeBase },
    'tokenizer.ggml.model': { type: 'string', value: 'llama' },
    'tokenizer.ggml.tokens': { type: 'string[]', value: vocab.tokens },
    'tokenizer.ggml.scores': { type: 'f32[]', value: vocab.scores },
    'tokenizer.ggml.token_type': { type: 'i32[]', value: vocab.types },
    'tokenizer.ggml.bos_token_id': u32(BOS),
    // Generation ends at <|im_end|>, the ChatML end of turn.
    'tokenizer.ggml.eos_token_id': u32(IM_END),
    'tokenizer.ggml.unknown_token_id': u32(UNK),
    'tokenizer.ggml.add_bos_token': { type: 'bool', value: false },
    'tokenizer.ggml.add_eos_token': { type: 'bool', value: false },
    'tokenizer.ggml.add_space_prefix': { type: 'bool', value: false },
    'tokenizer.chat_template': { type: 'string', value: CHAT_TEMPLATE },
  };
  const tensors: GgufTensor[] = [{ name: 'token_embd.weight', shape: [c.dim, c.vocab], data: new Float32Array(raw(w.embed)) }];
  w.layers.forEach((l, i) => {
    const p = `blk.${i}.`;
    tensors.push(
      vector(`${p}attn_norm.weight`, l.attnNorm),
      matrix(tf, `${p}attn_q.weight`, l.wq),
      matrix(tf, `${p}attn_k.weight`, l.wk),
      matrix(tf, `${p}attn_v.weight`, l.wv),
      matrix(tf, `${p}attn_output.weight`, l.wo),
      vector(`${p}ffn_norm.weight`, l.ffnNorm),
      matrix(tf, `${p}ffn_gate.weight`, l.wGate),
      matrix(tf, `${p}ffn_up.weight`, l.wUp),
      matrix(tf, `${p}ffn_down.weight`, l.wDown),
    );
  });
  tensors.push(vector('output_norm.weight', w.outNorm));
  return encodeGguf(metadata, tensors);
}

/**
 * A LoRA adapter as llama.cpp reads it: lora_a with ne = [in, rank] and lora_b with
 * ne = [rank, out], scaled by alpha / rank at load time.
 */
export function loraGguf(tf: Tf, lora: LoraWeights, name: string): Buffer {
  const metadata: Record<string, GgufValue> = {
    'general.architecture': { type: 'string', value: 'llama' },
    'general.type': { type: 'string', value: 'adapter' },
    'general.name': { type: 'string', value: name },
    'adapter.type': { type: 'string', value: 'lora' },
    'adapter.lora.alpha': { type: 'f32', value: lora.alpha },
  };
  const tensors: GgufTensor[] = [];
  lora.layers.forEach((l, i) => {
    for (const [proj, a, b] of [['attn_q', l.qA, l.qB], ['attn_v', l.vA, l.vB]] as const) {
      tensors.push(matrix(tf, `blk.${i}.${proj}.weight.lora_a`, a), matrix(tf, `blk.${i}.${proj}.weight.lora_b`, b));
    }
  });
  return encodeGguf(metadata, tensors);
}
