/**
 * One chat completion for a tenant: its settings applied (custom system prompt first, the
 * token cap, the default rerank), passages from its RAG datasets added and cited, its
 * newest LoRA adapter applied, then one reply, or `rerank_k` candidates of which the rerank
 * tier picks one. `meta` reports how the reply was chosen and how sure the model was.
 *
 * meta fields:
 * - `rerank_tier`: the tier that picked the reply, or null when no rerank ran;
 * - `candidates`: how many replies were generated (1 without rerank);
 * - `candidate_scores`: each candidate's rerank score, in generation order (empty without rerank);
 * - `chosen_candidate`: index of the returned candidate;
 * - `quality_score`: the geometric-mean probability the model gave the tokens of the returned
 *   reply (exp of the mean log-probability, 0 to 1; higher is more confident);
 * - `entropy`: the mean Shannon entropy in nats of the model's next-token distribution over
 *   the reply's tokens (0 is certain; null for an upstream model that gives no probabilities);
 * - `turbo_on`: whether the candidates were decoded as parallel sequences of one batch;
 * - `quantum_device`: where a quantum tier's circuits ran (`cpu`), else null;
 * - `adapter`: the training job whose LoRA adapter served this reply, or null;
 * - `citations`: the passages retrieved from the tenant's RAG datasets and given to the model.
 */
import { randomBytes } from 'node:crypto';
import type { RerankTierName } from '../../engines/language/rerank/tiers.ts';
import type { ChatMessage, ChatRequest } from '../../engines/language/types.ts';
import type { Caller } from './caller.ts';
import type { Citation, DatasetIndexes } from './datasets.ts';
import type { GeneratedSet, Language } from './language.ts';
import type { Adapters } from './training/adapters.ts';
import type { Sql } from '../../platform/storage/database.ts';

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  /** OpenAI's newer name of max_tokens; max_tokens wins when both are sent. */
  max_completion_tokens?: number;
  stream?: boolean;
  stop?: string | string[];
  use_rerank?: RerankTierName;
  rerank_k?: number;
  seed?: number;
}

export interface ChatMeta {
  rerank_tier: RerankTierName | null;
  candidates: number;
  candidate_scores: number[];
  chosen_candidate: number;
  quality_score: number;
  entropy: number | null;
  turbo_on: boolean;
  quantum_device: string | null;
  adapter: string | null;
  citations: Citation[];
}

export interface PreparedChat {
  id: string;
  created: number;
  request: ChatRequest;
  tier: RerankTierName | null;
  k: number;
  citations: Citation[];
  adapter: string | null;
  /** The user's last message: the query of retrieval and rerank. */
  query: string;
}

/** The tier a chat uses: `use_rerank`, else the tenant's default when `enable_rerank`. */
export function rerankTierOf(body: ChatBody, caller: Caller): RerankTierName | null {
  if (body.use_rerank) return body.use_rerank;
  const s = caller.tenant?.settings;
  return s?.enable_rerank ? s.rerank_tier : null;
}

export async function prepareChat(datasets: DatasetIndexes, language: Language, adapters: Adapters, caller: Caller, body: ChatBody): Promise<PreparedChat> {
  const m = language.model(body.model, 'chat');
  const settings = caller.tenant?.settings;
  const tier = rerankTierOf(body, caller);
  const query = [...body.messages].reverse().find((x) => x.role === 'user')?.content ?? '';
  const messages: ChatMessage[] = [];
  if (settings?.custom_system_prompt) messages.push({ role: 'system', content: settings.custom_system_prompt });
  const citations = caller.tenant && query ? await datasets.passages(caller.tenant.id, query, 3) : [];
  if (citations.length) {
    const passages = citations.map((c, i) => `[${i + 1}] ${c.title ? `${c.title}: ` : ''}${c.passage}`).join('\n');
    messages.push({ role: 'system', content: `Answer from these passages and cite them by number.\n${passages}` });
  }
  messages.push(...body.messages);
  const cap = settings?.max_tokens_per_request;
  const asked = body.max_tokens ?? body.max_completion_tokens;
  const maxTokens = cap ? Math.min(asked ?? cap, cap) : asked;
  let adapter: string | null = null;
  let lora: ChatRequest['lora'];
  // Adapters are trained on the built-in model: they apply to chats on that model only.
  if (caller.tenant?.adapter_job_id && m.provider === 'local' && m.id === 'lattice-tiny') {
    const path = await adapters.pathFor(caller.tenant.adapter_job_id);
    if (path) {
      adapter = caller.tenant.adapter_job_id;
      lora = { path };
    }
  }
  const stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  const request: ChatRequest = {
    model: m.id,
    messages,
    ...(body.temperature !== undefined ? { temperature: body.temperature } : { temperature: 1 }),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(stop?.length ? { stop } : {}),
    ...(body.seed !== undefined ? { seed: body.seed } : {}),
    ...(lora ? { lora } : {}),
  };
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    request,
    tier,
    k: tier ? (body.rerank_k ?? 4) : 1,
    citations,
    adapter,
    query,
  };
}

/** Picks the reply: the rerank tier's best candidate, or the only one. */
export async function choose(language: Language, p: PreparedChat, set: GeneratedSet): Promise<{ index: number; meta: ChatMeta }> {
  let index = 0;
  let scores: number[] = [];
  let device: string | null = null;
  if (p.tier && set.candidates.length > 1) {
    const run = await language.rerank(p.tier, p.query || ' ', set.candidates.map((c) => c.content));
    scores = new Array<number>(set.candidates.length).fill(0);
    for (const r of run.order) scores[r.index] = r.score;
    index = run.order[0]?.index ?? 0;
    device = run.device;
  }
  const c = set.candidates[index]!;
  return {
    index,
    meta: {
      rerank_tier: p.tier,
      candidates: set.candidates.length,
      candidate_scores: scores,
      chosen_candidate: index,
      quality_score: c.entropyKnown ? Math.exp(c.meanLogProb) : 0,
      entropy: c.entropyKnown ? c.meanEntropy : null,
      turbo_on: set.batched,
      quantum_device: device,
      adapter: p.adapter,
      citations: p.citations,
    },
  };
}

/** Tokens a chat spent: the prompt once per candidate, and every generated token. */
export function spentTokens(set: GeneratedSet): number {
  return set.prompt_tokens * set.candidates.length + set.candidates.reduce((s, c) => s + c.completion_tokens, 0);
}

/** Keeps the exchange, so that feedback on it (by `message_id` = the completion id) can train. */
export async function recordCompletion(db: Sql, caller: Caller, p: PreparedChat, reply: string, userSystem: string | null): Promise<void> {
  await db.query(
    'INSERT INTO llm_completions (id, tenant_id, account_id, model, prompt, system, reply) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [p.id, caller.tenant?.id ?? null, caller.accountId, p.request.model, p.query, userSystem, reply],
  );
}
