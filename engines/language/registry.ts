/**
 * Selects the backend for each model id from the configuration and exposes one interface
 * for chat, embeddings and rerank. Backends are created on first use, so a configured but
 * unused upstream or model file costs nothing.
 *
 * @example
 * const models = new ModelRegistry(loadConfig());
 * const r = await models.chat({ model: 'lattice-tiny', messages: [{ role: 'user', content: 'Hi' }] });
 */
import { hashEmbedTerms, HASH_DIMENSIONS } from './embed/hashing.ts';
import type { Capability, LanguageConfig, ModelConfig } from './config.ts';
import { LanguageError } from './errors.ts';
import { rerankDocuments } from './rerank/adhoc.ts';
import { classicReranker } from './rerank/classic.ts';
import { terms } from './text/tokenize.ts';
import type { ChatChunk, ChatRequest, ChatResult, EmbedResult, Provider, RerankResult } from './types.ts';
import { OpenAiProvider } from './upstream/openai.ts';
import { RerankHttpProvider } from './upstream/rerank-http.ts';
import type { Reranker } from './retrieval/search-index.ts';

/** Rerank tiers that run inside the engine rather than on a configured server. */
export type RerankTier = 'classic' | 'quantum_cpu' | 'quantum_gpu';

export class ModelRegistry {
  readonly config: LanguageConfig;
  private readonly env: NodeJS.ProcessEnv;
  private readonly providers = new Map<string, Provider>();
  /** Extra rerank tiers (the quantum one registers itself here). */
  private readonly tiers = new Map<string, () => Promise<Reranker>>();

  constructor(config: LanguageConfig, env: NodeJS.ProcessEnv = process.env) {
    this.config = config;
    this.env = env;
    this.tiers.set('classic', async () => classicReranker());
  }

  registerTier(name: string, make: () => Promise<Reranker>): void {
    this.tiers.set(name, make);
  }

  list(capability?: Capability): ModelConfig[] {
    return this.config.models.filter((m) => !capability || (m.capabilities ?? []).includes(capability) || (!m.capabilities && capability !== 'rerank'));
  }

  model(id: string, capability: Capability): ModelConfig {
    const m = this.config.models.find((x) => x.id === id);
    const ok = (x: ModelConfig): boolean => (x.capabilities ?? ['chat', 'embed', 'rerank']).includes(capability);
    if (!m || !ok(m)) {
      const avail = this.config.models.filter(ok).map((x) => x.id);
      throw new LanguageError('model_not_found', `model "${id}" is not available for ${capability}; available: ${avail.join(', ') || 'none'}`);
    }
    return m;
  }

  private async provider(m: ModelConfig): Promise<Provider> {
    let p = this.providers.get(m.id);
    if (p) return p;
    const key = m.api_key_env ? this.env[m.api_key_env] : undefined;
    const upstream = { baseUrl: m.base_url ?? '', ...(key ? { apiKey: key } : {}), ...(m.timeout_ms ? { timeoutMs: m.timeout_ms } : {}), ...(m.retries !== undefined ? { retries: m.retries } : {}) };
    if (m.provider === 'openai') p = new OpenAiProvider({ ...upstream, ...(m.upstream_model ? { modelMap: { [m.id]: m.upstream_model } } : {}) });
    else if (m.provider === 'rerank-http') p = new RerankHttpProvider({ ...upstream, ...(m.style ? { style: m.style } : {}) });
    else if (m.provider === 'local') {
      // Loaded lazily: node-llama-cpp's native binding is only needed when a local model is used.
      const { LocalProvider } = await import('./local/provider.ts');
      p = new LocalProvider({ [m.id]: { path: m.path ?? '', ...(m.context_size ? { contextSize: m.context_size } : {}), ...(m.threads ? { threads: m.threads } : {}) } });
    } else p = { kind: 'classic' };
    this.providers.set(m.id, p);
    return p;
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const p = await this.provider(this.model(req.model, 'chat'));
    if (!p.chat) throw new LanguageError('model_not_found', `model "${req.model}" cannot chat`);
    return p.chat(req);
  }

  async *chatStream(req: ChatRequest): AsyncGenerator<ChatChunk> {
    const p = await this.provider(this.model(req.model, 'chat'));
    if (!p.chatStream) throw new LanguageError('model_not_found', `model "${req.model}" cannot chat`);
    yield* p.chatStream(req);
  }

  /** Embeds `input` in batches of `batchSize` (default 64). */
  async embed(input: string[], modelId = this.config.default_embedding_model, batchSize = 64): Promise<EmbedResult> {
    if (!Array.isArray(input) || input.length === 0 || input.some((s) => typeof s !== 'string')) {
      throw new LanguageError('invalid_request', 'input must be a non-empty list of strings');
    }
    const m = this.model(modelId, 'embed');
    if (m.provider === 'classic') {
      // Each text is tokenized once, for its vector and for the token count.
      const lists = input.map((t) => terms(t));
      const tokens = lists.reduce((s, l) => s + l.length, 0);
      return { model: m.id, dimensions: HASH_DIMENSIONS, data: lists.map((l) => numbersOf(hashEmbedTerms(l))), usage: { prompt_tokens: tokens, total_tokens: tokens } };
    }
    const p = await this.provider(m);
    if (!p.embed) throw new LanguageError('model_not_found', `model "${modelId}" cannot embed`);
    const out: EmbedResult = { model: m.id, dimensions: 0, data: [], usage: { prompt_tokens: 0, total_tokens: 0 } };
    for (let i = 0; i < input.length; i += batchSize) {
      const r = await p.embed(m.id, input.slice(i, i + batchSize));
      out.data.push(...r.data);
      out.dimensions = r.dimensions;
      out.usage.prompt_tokens += r.usage.prompt_tokens;
      out.usage.total_tokens += r.usage.total_tokens;
    }
    return out;
  }

  /** Reranks `documents` with a built-in tier (classic, quantum_cpu, …) or a configured rerank model. */
  async rerank(query: string, documents: string[], opts: { model?: string; topK?: number } = {}): Promise<RerankResult> {
    if (typeof query !== 'string' || query.trim() === '') throw new LanguageError('invalid_request', 'query must be a non-empty string');
    if (!Array.isArray(documents) || documents.some((d) => typeof d !== 'string')) throw new LanguageError('invalid_request', 'documents must be a list of strings');
    const name = opts.model ?? 'classic';
    const tier = this.tiers.get(name);
    let results: { index: number; score: number }[];
    if (tier) results = await rerankDocuments(await tier(), query, documents);
    else {
      const m = this.model(name, 'rerank');
      const p = await this.provider(m);
      if (!p.rerank) throw new LanguageError('model_not_found', `model "${name}" cannot rerank`);
      results = (await p.rerank(m.upstream_model ?? m.id, query, documents, opts.topK)).results;
    }
    return { model: name, results: opts.topK ? results.slice(0, opts.topK) : results };
  }

  async close(): Promise<void> {
    for (const p of this.providers.values()) await p.close?.();
    this.providers.clear();
  }
}

/** A vector as a plain array (the reply's type). A loop: Array.from walks a typed array through its iterator, ten times slower at 512 numbers. */
function numbersOf(v: Float32Array): number[] {
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]!;
  return out;
}
