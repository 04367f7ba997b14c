/**
 * The language engine as the API uses it: one model registry per process, the rerank tiers
 * (built once), generation of one or more candidates with the model's token probabilities,
 * and rerank of plain document lists with what ran where.
 */
import type { LanguageConfig, ModelConfig } from '../../engines/language/config.ts';
import { LanguageError } from '../../engines/language/errors.ts';
import { generateCandidates, type Candidate } from '../../engines/language/local/candidates.ts';
import { ModelRegistry } from '../../engines/language/registry.ts';
import { rerankDocuments } from '../../engines/language/rerank/adhoc.ts';
import type { QuantumReranker } from '../../engines/language/rerank/quantum.ts';
import { rerankerFor, type RerankTierName } from '../../engines/language/rerank/tiers.ts';
import type { Reranker } from '../../engines/language/retrieval/search-index.ts';
import type { ChatRequest, Usage } from '../../engines/language/types.ts';
import { qError } from './errors.ts';

export interface GeneratedSet {
  model: string;
  prompt_tokens: number;
  candidates: (Candidate & { entropyKnown: boolean })[];
  batched: boolean;
}

export interface RerankRun {
  order: { index: number; score: number }[];
  /** Where a quantum tier's circuits ran, as the engine reports it. */
  device: 'cpu' | null;
  circuits: number;
  qubits: number;
}

export class Language {
  readonly models: ModelRegistry;
  private readonly rerankers = new Map<string, Promise<Reranker>>();

  constructor(config: LanguageConfig) {
    this.models = new ModelRegistry(config);
  }

  get config(): LanguageConfig {
    return this.models.config;
  }

  /** The model `id` for `capability`, or 400 MODEL_NOT_FOUND naming what exists. */
  model(id: string, capability: 'chat' | 'embed' | 'rerank'): ModelConfig {
    try {
      return this.models.model(id, capability);
    } catch (err) {
      if (err instanceof LanguageError) throw qError('MODEL_NOT_FOUND', err.message);
      throw err;
    }
  }

  reranker(tier: RerankTierName): Promise<Reranker> {
    let r = this.rerankers.get(tier);
    if (!r) {
      r = rerankerFor(tier);
      this.rerankers.set(tier, r);
    }
    return r;
  }

  /** Reorders `documents` for `query` with a tier, best first. */
  async rerank(tier: RerankTierName, query: string, documents: readonly string[]): Promise<RerankRun> {
    const r = await this.reranker(tier);
    const order = await rerankDocuments(r, query, documents);
    const q = (r as QuantumReranker).lastRun;
    const quantum = tier !== 'classic' && q;
    return { order, device: quantum ? q.device : null, circuits: quantum ? q.circuits : 0, qubits: quantum ? q.qubits : 0 };
  }

  /**
   * `k` replies to `req`. A local model decodes them as parallel sequences with token
   * probabilities (entropy known); an upstream model is asked `k` times (entropy unknown).
   */
  async generate(req: ChatRequest, k: number, onText?: (candidate: number, text: string) => void): Promise<GeneratedSet> {
    const m = this.model(req.model, 'chat');
    if (m.provider === 'local') {
      const r = await generateCandidates({ path: m.path ?? '', contextSize: m.context_size, threads: m.threads }, req, k, onText);
      return { ...r, candidates: r.candidates.map((c) => ({ ...c, entropyKnown: true })) };
    }
    const out: GeneratedSet = { model: req.model, prompt_tokens: 0, candidates: [], batched: false };
    const upstreamReq = { ...req, lora: undefined };
    if (k === 1 && onText) {
      // One streamed reply: pass the upstream's deltas through as they come.
      let content = '';
      for await (const chunk of this.models.chatStream(upstreamReq)) {
        if (chunk.type === 'delta') {
          content += chunk.content;
          onText(0, chunk.content);
        } else {
          out.prompt_tokens = chunk.usage.prompt_tokens;
          out.candidates.push({ content, finish_reason: chunk.finish_reason, completion_tokens: chunk.usage.completion_tokens, meanEntropy: 0, meanLogProb: 0, entropyKnown: false });
        }
      }
      return out;
    }
    const runs = await Promise.all(
      Array.from({ length: k }, (_, i) => this.models.chat({ ...upstreamReq, ...(req.seed !== undefined ? { seed: req.seed + i } : {}) })),
    );
    runs.forEach((r) => {
      out.prompt_tokens = r.usage.prompt_tokens;
      out.candidates.push({ content: r.content, finish_reason: r.finish_reason, completion_tokens: r.usage.completion_tokens, meanEntropy: 0, meanLogProb: 0, entropyKnown: false });
    });
    return out;
  }

  async close(): Promise<void> {
    await this.models.close();
    const { unloadAll } = await import('../../engines/language/local/runtime.ts');
    await unloadAll();
  }
}

export function usageOf(prompt: number, completion: number): Usage {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
