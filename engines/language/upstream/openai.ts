/**
 * The upstream provider for any OpenAI-compatible server (vLLM, llama.cpp server, Ollama, a
 * hosted API): chat completions, whole or streamed (SSE), and embeddings. Answers are checked
 * for shape; anything else is an `upstream_bad_response`, never a crash.
 */
import { LanguageError } from '../errors.ts';
import type { ChatChunk, ChatRequest, ChatResult, EmbedResult, FinishReason, Provider, Usage } from '../types.ts';
import { validateChatRequest } from '../validate.ts';
import { joinUrl, postJson, readJson } from './http.ts';
import type { UpstreamOptions } from './http.ts';
import { sseData } from './sse.ts';

export interface OpenAiProviderOptions extends UpstreamOptions {
  /** The upstream's name for a model when it differs from ours (model id → upstream id). */
  modelMap?: Record<string, string>;
}

function bad(url: string, what: string): LanguageError {
  return new LanguageError('upstream_bad_response', `upstream ${url} answered without ${what}`);
}

function finish(reason: unknown): FinishReason {
  return reason === 'length' ? 'length' : 'stop';
}

function usageOf(u: unknown): Usage | undefined {
  const x = u as Partial<Usage> | undefined;
  if (!x || typeof x.prompt_tokens !== 'number' || typeof x.completion_tokens !== 'number') return undefined;
  return { prompt_tokens: x.prompt_tokens, completion_tokens: x.completion_tokens, total_tokens: x.total_tokens ?? x.prompt_tokens + x.completion_tokens };
}

export class OpenAiProvider implements Provider {
  readonly kind = 'openai';
  private readonly opts: OpenAiProviderOptions;

  constructor(opts: OpenAiProviderOptions) {
    this.opts = opts;
  }

  private upstreamModel(model: string): string {
    return this.opts.modelMap?.[model] ?? model;
  }

  private body(req: ChatRequest, stream: boolean): Record<string, unknown> {
    const b: Record<string, unknown> = { model: this.upstreamModel(req.model), messages: req.messages.map((m) => ({ role: m.role, content: m.content })), stream };
    if (req.temperature !== undefined) b.temperature = req.temperature;
    if (req.top_p !== undefined) b.top_p = req.top_p;
    if (req.max_tokens !== undefined) b.max_tokens = req.max_tokens;
    if (req.stop?.length) b.stop = req.stop;
    if (req.seed !== undefined) b.seed = req.seed;
    if (stream) b.stream_options = { include_usage: true };
    return b;
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    validateChatRequest(req);
    const url = joinUrl(this.opts.baseUrl, 'chat/completions');
    const json = (await readJson(await postJson(this.opts, 'chat/completions', this.body(req, false), req.signal), url)) as {
      choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
      usage?: unknown;
    };
    const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
    if (!choice || typeof choice.message?.content !== 'string') throw bad(url, 'choices[0].message.content');
    const usage = usageOf(json.usage);
    if (!usage) throw bad(url, 'usage');
    return { model: req.model, content: choice.message.content, finish_reason: finish(choice.finish_reason), usage };
  }

  async *chatStream(req: ChatRequest): AsyncGenerator<ChatChunk> {
    validateChatRequest(req);
    const url = joinUrl(this.opts.baseUrl, 'chat/completions');
    const call = await postJson(this.opts, 'chat/completions', this.body(req, true), req.signal);
    if (!call.res.body) {
      call.clear();
      throw bad(url, 'a body');
    }
    let reason: FinishReason = 'stop';
    let usage: Usage | undefined;
    let deltas = 0;
    let done = false;
    try {
      for await (const data of sseData(call.res.body)) {
        if (data === '[DONE]') {
          done = true;
          break;
        }
        let frame: { choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[]; usage?: unknown };
        try {
          frame = JSON.parse(data);
        } catch {
          throw new LanguageError('upstream_bad_response', `upstream ${url} streamed a frame that is not JSON: ${data.slice(0, 120)}`);
        }
        const choice = frame.choices?.[0];
        const delta = choice?.delta?.content;
        if (typeof delta === 'string' && delta !== '') {
          deltas++;
          yield { type: 'delta', content: delta };
        }
        if (choice?.finish_reason) reason = finish(choice.finish_reason);
        usage = usageOf(frame.usage) ?? usage;
      }
    } catch (err) {
      if (err instanceof LanguageError) throw err;
      throw new LanguageError('upstream_timeout', `upstream ${url} stopped streaming: ${(err as Error).message}`, { cause: err });
    } finally {
      call.clear();
    }
    if (!done) throw new LanguageError('upstream_bad_response', `upstream ${url} ended the stream without [DONE]`);
    // Servers that ignore stream_options send no usage. They send one delta per generated
    // token, so the delta count is the completion count; the prompt count is then unknown (0).
    yield { type: 'done', finish_reason: reason, usage: usage ?? { prompt_tokens: 0, completion_tokens: deltas, total_tokens: deltas } };
  }

  async embed(model: string, input: string[], signal?: AbortSignal): Promise<EmbedResult> {
    if (!Array.isArray(input) || input.length === 0 || input.some((s) => typeof s !== 'string')) {
      throw new LanguageError('invalid_request', 'input must be a non-empty list of strings');
    }
    const url = joinUrl(this.opts.baseUrl, 'embeddings');
    const json = (await readJson(
      await postJson(this.opts, 'embeddings', { model: this.upstreamModel(model), input, encoding_format: 'float' }, signal),
      url,
    )) as { data?: { index?: number; embedding?: unknown }[]; usage?: { prompt_tokens?: number; total_tokens?: number } };
    if (!Array.isArray(json?.data) || json.data.length !== input.length) throw bad(url, `${input.length} embeddings`);
    const data: number[][] = new Array(input.length);
    json.data.forEach((d, i) => {
      const idx = typeof d.index === 'number' ? d.index : i;
      if (!Array.isArray(d.embedding) || d.embedding.some((x) => typeof x !== 'number') || idx < 0 || idx >= input.length) throw bad(url, 'numeric embeddings');
      data[idx] = d.embedding as number[];
    });
    const dims = data[0]?.length ?? 0;
    if (data.some((v) => !v || v.length !== dims)) throw bad(url, 'embeddings of one dimension');
    const prompt = json.usage?.prompt_tokens ?? 0;
    return { model, dimensions: dims, data, usage: { prompt_tokens: prompt, total_tokens: json.usage?.total_tokens ?? prompt } };
  }
}
