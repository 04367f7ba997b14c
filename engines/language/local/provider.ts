/**
 * The local provider: any GGUF model through node-llama-cpp on the CPU, with the chat
 * template the file carries. Each request gets its own context (so a LoRA adapter can be
 * applied to one request without a restart), sized to the model's context window; a prompt
 * that does not fit is refused before generation instead of being silently truncated.
 */
import { availableParallelism } from 'node:os';
import type { LlamaContext, LlamaModel } from 'node-llama-cpp';
import { LanguageError } from '../errors.ts';
import type { ChatChunk, ChatRequest, ChatResult, EmbedResult, FinishReason, Provider } from '../types.ts';
import { validateChatRequest } from '../validate.ts';
import { ChunkQueue } from './queue.ts';
import { chatHistory as historyOf } from './history.ts';
import { loadModel } from './runtime.ts';

export interface LocalModelOptions {
  path: string;
  contextSize?: number;
  threads?: number;
}


export class LocalProvider implements Provider {
  readonly kind = 'local';
  private readonly models: Map<string, LocalModelOptions>;

  /** `models` maps each model id this provider serves to its file and settings. */
  constructor(models: Record<string, LocalModelOptions>) {
    this.models = new Map(Object.entries(models));
  }

  private options(id: string): LocalModelOptions {
    const o = this.models.get(id);
    if (!o) throw new LanguageError('model_not_found', `model "${id}" is not served by the local provider`);
    return o;
  }

  private threads(o: LocalModelOptions): number {
    return o.threads || availableParallelism();
  }

  private contextSize(model: LlamaModel, o: LocalModelOptions): number {
    return Math.min(o.contextSize ?? 4096, model.trainContextSize);
  }

  private async run(req: ChatRequest, onText: (text: string) => void): Promise<ChatResult> {
    validateChatRequest(req);
    const o = this.options(req.model);
    const model = await loadModel(o.path);
    const { LlamaChat } = await import('node-llama-cpp');
    const chatHistory = historyOf(req);
    const size = this.contextSize(model, o);
    let context: LlamaContext | undefined;
    try {
      context = await model.createContext({
        contextSize: size,
        threads: this.threads(o),
        ...(req.lora ? { lora: { adapters: [{ filePath: req.lora.path, scale: req.lora.scale ?? 1 }] } } : {}),
      });
    } catch (err) {
      const what = req.lora ? `LoRA adapter ${req.lora.path}` : `a context for ${req.model}`;
      throw new LanguageError(req.lora ? 'model_file_invalid' : 'invalid_request', `cannot load ${what}: ${(err as Error).message}`, { cause: err });
    }
    try {
      const chat = new LlamaChat({ contextSequence: context.getSequence() });
      // The prompt as the model's chat template renders it, counted before generating.
      const promptTokens = chat.chatWrapper.generateContextState({ chatHistory }).contextText.tokenize(model.tokenizer).length;
      if (promptTokens >= size) {
        throw new LanguageError('context_length_exceeded', `the prompt is ${promptTokens} tokens; model "${req.model}" has a context of ${size} tokens`);
      }
      const room = size - promptTokens;
      const maxTokens = Math.min(req.max_tokens ?? room, room);
      let completion = 0;
      const res = await chat.generateResponse(chatHistory, {
        maxTokens,
        temperature: req.temperature ?? 0.8,
        topP: req.top_p,
        seed: req.seed,
        signal: req.signal,
        stopOnAbortSignal: true,
        customStopTriggers: req.stop,
        onToken: (tokens) => {
          completion += tokens.length;
        },
        onTextChunk: onText,
      });
      const reason: FinishReason = res.metadata.stopReason === 'maxTokens' ? 'length' : 'stop';
      return {
        model: req.model,
        content: res.response,
        finish_reason: reason,
        usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion },
      };
    } finally {
      await context.dispose();
    }
  }

  chat(req: ChatRequest): Promise<ChatResult> {
    return this.run(req, () => {});
  }

  async *chatStream(req: ChatRequest): AsyncGenerator<ChatChunk> {
    const queue = new ChunkQueue<ChatChunk>();
    // A consumer that stops reading early stops generation too.
    const stop = new AbortController();
    const signal = req.signal ? AbortSignal.any([req.signal, stop.signal]) : stop.signal;
    this.run({ ...req, signal }, (text) => queue.push({ type: 'delta', content: text })).then(
      (r) => {
        queue.push({ type: 'done', finish_reason: r.finish_reason, usage: r.usage });
        queue.end();
      },
      (err) => queue.end(err),
    );
    try {
      yield* queue.drain();
    } finally {
      stop.abort();
    }
  }

  /** Mean-pooled, L2-normalised hidden states of the model, one vector per input. */
  async embed(id: string, input: string[]): Promise<EmbedResult> {
    if (!Array.isArray(input) || input.length === 0 || input.some((s) => typeof s !== 'string')) {
      throw new LanguageError('invalid_request', 'input must be a non-empty list of strings');
    }
    const o = this.options(id);
    const model = await loadModel(o.path);
    const size = this.contextSize(model, o);
    const ctx = await model.createEmbeddingContext({ contextSize: size, threads: this.threads(o) });
    try {
      const data: number[][] = [];
      let tokens = 0;
      for (const text of input) {
        const toks = model.tokenize(text);
        if (toks.length >= size) throw new LanguageError('context_length_exceeded', `an input is ${toks.length} tokens; model "${id}" embeds at most ${size - 1}`);
        tokens += toks.length;
        const v = (await ctx.getEmbeddingFor(toks)).vector;
        const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
        data.push(v.map((x) => x / norm));
      }
      return { model: id, dimensions: data[0].length, data, usage: { prompt_tokens: tokens, total_tokens: tokens } };
    } finally {
      await ctx.dispose();
    }
  }
}
