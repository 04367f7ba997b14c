/**
 * Generation with the model's token probabilities: one or more replies ("candidates") to the
 * same chat, decoded as parallel sequences of one llama.cpp context (so four candidates cost
 * little more than one on a small model), each with the Shannon entropy of the sampling
 * distribution at every step and the probability of the token that was drawn. The chat
 * service uses it for `use_rerank` (k candidates, one picked by a rerank tier) and for the
 * `entropy` and `quality_score` it reports on every reply.
 *
 * @example
 * const { candidates } = await generateCandidates(provider, req, 4);
 * candidates[0].content, candidates[0].meanEntropy
 */
import type { LlamaContext, Token } from 'node-llama-cpp';
import { LanguageError } from '../errors.ts';
import type { ChatRequest, FinishReason, Usage } from '../types.ts';
import { validateChatRequest } from '../validate.ts';
import { chatHistory } from './history.ts';
import type { LocalModelOptions } from './provider.ts';
import { loadModel } from './runtime.ts';

export interface Candidate {
  content: string;
  finish_reason: FinishReason;
  completion_tokens: number;
  /** Mean Shannon entropy (nats) of the next-token distribution over the generated tokens. */
  meanEntropy: number;
  /** Mean natural log-probability of the drawn tokens (≤ 0); exp of it is the geometric-mean token probability. */
  meanLogProb: number;
}

export interface CandidatesResult {
  model: string;
  prompt_tokens: number;
  candidates: Candidate[];
  /** Whether the candidates were decoded as parallel sequences of one batch. */
  batched: boolean;
}

/** The model file and its context settings, as the local provider takes them. */
export type LocalGenerationModel = LocalModelOptions;


/** Text the model must not show: the chat template's end-of-turn marker, when it is plain text. */
const TURN_END = ['<|im_end|>', '<|eot_id|>', '<|end|>', '</s>'];

function entropyOf(probabilities: Map<Token, number>): number {
  let h = 0;
  for (const p of probabilities.values()) if (p > 0) h -= p * Math.log(p);
  return h;
}

/**
 * Generates `k` replies to `req` (k ≥ 1) with seeds `req.seed + i` (or random ones), each
 * `onText(i, delta)` as it is decoded. Stop sequences end a candidate and are not included.
 */
export async function generateCandidates(
  m: LocalGenerationModel,
  req: ChatRequest,
  k: number,
  onText?: (candidate: number, text: string) => void,
): Promise<CandidatesResult> {
  validateChatRequest(req);
  if (!Number.isInteger(k) || k < 1 || k > 16) throw new LanguageError('invalid_request', 'the number of candidates must be an integer from 1 to 16');
  const model = await loadModel(m.path);
  const { LlamaChat } = await import('node-llama-cpp');
  const size = Math.min(m.contextSize ?? 4096, model.trainContextSize);
  let context: LlamaContext;
  try {
    context = await model.createContext({
      contextSize: size * k,
      sequences: k,
      threads: m.threads || undefined,
      ...(req.lora ? { lora: { adapters: [{ filePath: req.lora.path, scale: req.lora.scale ?? 1 }] } } : {}),
    });
  } catch (err) {
    const what = req.lora ? `LoRA adapter ${req.lora.path}` : `a context for ${req.model}`;
    throw new LanguageError(req.lora ? 'model_file_invalid' : 'invalid_request', `cannot load ${what}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const sequences = Array.from({ length: k }, () => context.getSequence());
    // The chat template of the file renders the prompt, exactly as LlamaChat would.
    const templ = new LlamaChat({ contextSequence: sequences[0]!, autoDisposeSequence: false });
    const promptTokens = templ.chatWrapper.generateContextState({ chatHistory: chatHistory(req) }).contextText.tokenize(model.tokenizer);
    templ.dispose({ disposeSequence: false });
    if (promptTokens.length >= size) {
      throw new LanguageError('context_length_exceeded', `the prompt is ${promptTokens.length} tokens; model "${req.model}" has a context of ${size} tokens`);
    }
    const room = size - promptTokens.length;
    const maxTokens = Math.min(req.max_tokens ?? room, room);
    const stops = [...(req.stop ?? []).filter((s) => s !== ''), ...TURN_END];
    const baseSeed = req.seed ?? Math.floor(Math.random() * 2 ** 31);
    const one = async (i: number): Promise<Candidate> => {
      const tokens: Token[] = [];
      let entropy = 0;
      let logProb = 0;
      let shown = 0;
      let text = '';
      let reason: FinishReason = 'length';
      if (maxTokens === 0) return { content: '', finish_reason: 'length', completion_tokens: 0, meanEntropy: 0, meanLogProb: 0 };
      const gen = sequences[i]!.evaluateWithMetadata(promptTokens, { probabilities: true, confidence: true }, {
        temperature: req.temperature ?? 0.8,
        ...(req.top_p !== undefined ? { topP: req.top_p } : {}),
        seed: baseSeed + i,
      });
      for await (const out of gen) {
        if (req.signal?.aborted) {
          reason = 'stop';
          break;
        }
        if (model.isEogToken(out.token)) {
          reason = 'stop';
          break;
        }
        tokens.push(out.token);
        entropy += entropyOf(out.probabilities);
        logProb += Math.log(Math.max(out.confidence, 1e-12));
        text = model.detokenize(tokens);
        const hit = stops.map((s) => ({ s, at: text.indexOf(s) })).filter((x) => x.at >= 0).sort((a, b) => a.at - b.at)[0];
        if (hit) {
          text = text.slice(0, hit.at);
          reason = 'stop';
        }
        // Hold back text that may be the start of a stop sequence.
        let safe = text.length;
        if (!hit) {
          for (const s of stops) {
            for (let l = Math.min(s.length - 1, text.length); l > 0; l--) {
              if (text.endsWith(s.slice(0, l))) {
                safe = Math.min(safe, text.length - l);
                break;
              }
            }
          }
        }
        if (safe > shown) {
          onText?.(i, text.slice(shown, safe));
          shown = safe;
        }
        if (hit || tokens.length >= maxTokens) break;
      }
      await gen.return(undefined);
      if (text.length > shown) onText?.(i, text.slice(shown));
      const n = Math.max(1, tokens.length);
      return { content: text, finish_reason: reason, completion_tokens: tokens.length, meanEntropy: entropy / n, meanLogProb: logProb / n };
    };
    const candidates = await Promise.all(sequences.map((_, i) => one(i)));
    return { model: req.model, prompt_tokens: promptTokens.length, candidates, batched: k > 1 };
  } finally {
    await context.dispose();
  }
}

/** Usage of a set of candidates: the prompt once per candidate decoded, every generated token. */
export function candidatesUsage(r: CandidatesResult): Usage {
  const completion = r.candidates.reduce((s, c) => s + c.completion_tokens, 0);
  return { prompt_tokens: r.prompt_tokens, completion_tokens: completion, total_tokens: r.prompt_tokens + completion };
}
