/**
 * POST /v1/chat/completions — OpenAI-compatible chat (whole, or streamed as server-sent
 * `chat.completion.chunk` frames ending with `data: [DONE]`), with the tenant's settings,
 * RAG citations, LoRA adapter and optional candidate reranking (see ../chat.ts for `meta`).
 * A streamed chat with rerank streams the chosen candidate once the tier has picked it (the
 * choice needs every candidate whole); without rerank the text streams as it is decoded.
 */
import { Type, type TSchema } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { OPENAI_UNKNOWN_FIELD, chatCompletionSchema, type OpenAiChatParameter } from '../../../platform/http/openai-chat.ts';
import { UNKNOWN_FIELD_MESSAGE } from '../../../platform/http/validation.ts';
import { LanguageError } from '../../../engines/language/errors.ts';
import { choose, prepareChat, recordCompletion, spentTokens, type ChatBody } from '../chat.ts';
import { commonErrors, formatQError, qError } from '../errors.ts';
import { begin, bearerSecurity, requireLicense, TAG, type QDeps } from './context.ts';
import { RerankTier } from './schemas.ts';

const Message = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.String({ maxLength: 200_000 }),
    name: Type.Optional(Type.String({ maxLength: 64, description: 'OpenAI participant name: accepted, not used' })),
  },
  { [UNKNOWN_FIELD_MESSAGE]: 'Unrecognized request argument supplied: messages[].{field}' },
);

/**
 * The other parameters of OpenAI's chat completions API. Clients built for it send them, so
 * they are accepted: those that only tune or label a request are taken and not applied; those
 * that would change the shape of the answer are accepted at the value that asks for nothing
 * this API does not do (n 1, logprobs false, text responses, no tools). Anything else is refused
 * as OpenAI refuses it.
 */
const notApplied = (what: string) => `OpenAI parameter, accepted and not applied: ${what}`;
const OpenAiParameters = {
  max_completion_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32768, description: 'OpenAI name of max_tokens (max_tokens wins when both are sent)' })),
  n: Type.Optional(Type.Integer({ minimum: 1, maximum: 1, description: 'Only 1: one choice per reply (rerank_k generates candidates)' })),
  user: Type.Optional(Type.String({ maxLength: 256, description: notApplied('end-user label') })),
  presence_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2, description: notApplied('the local models sample without penalties') })),
  frequency_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2, description: notApplied('the local models sample without penalties') })),
  logit_bias: Type.Optional(Type.Record(Type.String(), Type.Number({ minimum: -100, maximum: 100 }), { description: notApplied('token biases') })),
  logprobs: Type.Optional(Type.Literal(false, { description: 'Only false: log-probabilities are not returned' })),
  top_logprobs: Type.Optional(Type.Integer({ minimum: 0, maximum: 0, description: 'Only 0: log-probabilities are not returned' })),
  response_format: Type.Optional(Type.Object({ type: Type.Literal('text') }, { description: 'Only {type: "text"}' })),
  tools: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 0, description: 'Only an empty list: no function calling' })),
  tool_choice: Type.Optional(Type.Literal('none', { description: 'Only none: no function calling' })),
  parallel_tool_calls: Type.Optional(Type.Boolean({ description: notApplied('no function calling') })),
  functions: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 0, description: 'Only an empty list: no function calling' })),
  function_call: Type.Optional(Type.Literal('none', { description: 'Only none: no function calling' })),
  stream_options: Type.Optional(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { description: 'The last streamed frame always carries usage' })),
  modalities: Type.Optional(Type.Array(Type.Literal('text'), { description: 'Only ["text"]' })),
  audio: Type.Optional(Type.Null({ description: 'Only null: no audio output' })),
  web_search_options: Type.Optional(Type.Null({ description: 'Only null: no web search' })),
  prediction: Type.Optional(Type.Unknown({ description: notApplied('predicted output, a decoding hint') })),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String(), { description: notApplied('stored-completion labels') })),
  store: Type.Optional(Type.Boolean({ description: notApplied('completions are not stored for distillation') })),
  service_tier: Type.Optional(Type.String({ maxLength: 32, description: notApplied('one service tier') })),
  reasoning_effort: Type.Optional(Type.String({ maxLength: 32, description: notApplied('no reasoning models') })),
  verbosity: Type.Optional(Type.String({ maxLength: 32, description: notApplied('length follows max_tokens') })),
  prompt_cache_key: Type.Optional(Type.String({ maxLength: 256, description: notApplied('prompt cache label') })),
  safety_identifier: Type.Optional(Type.String({ maxLength: 256, description: notApplied('end-user label') })),
} satisfies Record<OpenAiChatParameter, TSchema>;

const ChatRequestSchema = Type.Object({
  model: Type.String({ minLength: 1, maxLength: 200 }),
  messages: Type.Array(Message, { minItems: 1, maxItems: 500 }),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, description: 'Default 1' })),
  top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32768, description: 'Capped by the tenant’s max_tokens_per_request' })),
  stream: Type.Optional(Type.Boolean()),
  stop: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { maxItems: 4 })])),
  use_rerank: Type.Optional(RerankTier),
  rerank_k: Type.Optional(Type.Integer({ minimum: 2, maximum: 16, description: 'Candidates generated for reranking (default 4)' })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'Makes sampling reproducible (candidate i uses seed + i)' })),
  ...OpenAiParameters,
}, OPENAI_UNKNOWN_FIELD);

const Citation = Type.Object({ dataset_id: Type.String(), doc_id: Type.String(), title: Type.String(), passage: Type.String(), score: Type.Number() });
const Meta = Type.Object({
  rerank_tier: Type.Union([Type.String(), Type.Null()]),
  candidates: Type.Integer({ description: 'Replies generated (1 without rerank)' }),
  candidate_scores: Type.Array(Type.Number(), { description: 'Rerank score of each candidate, in generation order' }),
  chosen_candidate: Type.Integer(),
  quality_score: Type.Number({ description: 'Geometric-mean probability of the reply’s tokens under the model (0 to 1)' }),
  entropy: Type.Union([Type.Number(), Type.Null()], { description: 'Mean next-token entropy over the reply, in nats' }),
  turbo_on: Type.Boolean({ description: 'Candidates decoded as parallel sequences of one batch' }),
  quantum_device: Type.Union([Type.String(), Type.Null()]),
  adapter: Type.Union([Type.String(), Type.Null()], { description: 'Training job whose LoRA adapter served the reply' }),
  citations: Type.Array(Citation),
});

const Completion = chatCompletionSchema({ meta: Meta });

function languageError(err: unknown): never {
  if (err instanceof LanguageError) {
    if (err.code === 'model_not_found') throw qError('MODEL_NOT_FOUND', err.message);
    if (err.status === 429) throw qError('RATE_LIMITED', err.message, err.retryAfter ?? 1);
    if (err.status < 500) throw qError('INVALID_REQUEST', err.message);
    throw qError('INTERNAL_ERROR', err.message);
  }
  throw err;
}

export function registerChat(app: ServiceApp, deps: QDeps): void {
  const db = deps.ctx.db;
  app.post(
    '/v1/chat/completions',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.inference],
        summary: 'Chat completion (OpenAI-compatible), optionally reranking rerank_k candidates',
        description:
          'With `use_rerank` (or the tenant’s enable_rerank) the model generates `rerank_k` candidates as parallel sequences and the tier picks one; ' +
          'quantum tiers need an X-License-Key with quantum_rerank. With `stream` the answer is `text/event-stream` of chat.completion.chunk frames; the last one carries `usage` and `meta`.',
        security: bearerSecurity,
        body: ChatRequestSchema,
        response: { 200: Completion, ...commonErrors },
      },
    },
    async (req, reply) => {
      const caller = await begin(deps, req, { tokens: true, inference: true });
      const body = req.body as ChatBody;
      const userSystem = caller.tenant?.settings.custom_system_prompt ?? body.messages.find((m) => m.role === 'system')?.content ?? null;
      const prepared = await prepareChat(deps.datasets, deps.language, deps.adapters, caller, body);
      if (prepared.tier === 'quantum_cpu' || prepared.tier === 'quantum_gpu') await requireLicense(deps, req, caller, 'quantum_rerank');
      const live = body.stream && prepared.k === 1;

      if (!body.stream) {
        const set = await deps.language.generate(prepared.request, prepared.k).catch(languageError);
        const { index, meta } = await choose(deps.language, prepared, set);
        const c = set.candidates[index]!;
        deps.limits.chargeTokens(caller, deps.ctx.now(), spentTokens(set));
        await recordCompletion(db, caller, prepared, c.content, userSystem);
        return {
          id: prepared.id,
          object: 'chat.completion' as const,
          created: prepared.created,
          model: set.model,
          choices: [{ index: 0, message: { role: 'assistant' as const, content: c.content }, finish_reason: c.finish_reason }],
          usage: { prompt_tokens: set.prompt_tokens, completion_tokens: c.completion_tokens, total_tokens: set.prompt_tokens + c.completion_tokens },
          meta,
        };
      }

      // Streaming: headers go out with the first frame; errors before it are ordinary JSON errors.
      const raw = reply.raw;
      let started = false;
      const frame = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}): void => {
        if (!started) {
          reply.hijack();
          raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': req.id });
          started = true;
        }
        const chunk = { id: prepared.id, object: 'chat.completion.chunk', created: prepared.created, model: prepared.request.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
        raw.write(`data: ${JSON.stringify(chunk)}\n\n`);
      };
      const abort = new AbortController();
      raw.on('close', () => abort.abort());
      prepared.request.signal = abort.signal;
      let set;
      try {
        set = await deps.language.generate(prepared.request, prepared.k, live ? (_i, text) => frame(started ? { content: text } : { role: 'assistant', content: text }, null) : undefined);
      } catch (err) {
        if (!started) languageError(err);
        raw.write(`data: ${JSON.stringify(formatQError({ status: 500, code: 'INTERNAL_ERROR', message: (err as Error).message, extra: {} }, req.id))}\n\n`);
        raw.end('data: [DONE]\n\n');
        return reply;
      }
      const { index, meta } = await choose(deps.language, prepared, set);
      const c = set.candidates[index]!;
      if (!live) {
        // The chosen candidate, in pieces of a few words, as a live stream would have sent it.
        const words = c.content.match(/\S+\s*|\s+/g) ?? [];
        frame({ role: 'assistant', content: '' }, null);
        for (let i = 0; i < words.length; i += 4) frame({ content: words.slice(i, i + 4).join('') }, null);
      } else if (!started) frame({ role: 'assistant', content: '' }, null);
      const usage = { prompt_tokens: set.prompt_tokens, completion_tokens: c.completion_tokens, total_tokens: set.prompt_tokens + c.completion_tokens };
      frame({}, c.finish_reason, { usage, meta });
      raw.end('data: [DONE]\n\n');
      deps.limits.chargeTokens(caller, deps.ctx.now(), spentTokens(set));
      await recordCompletion(db, caller, prepared, c.content, userSystem);
      return reply;
    },
  );
}
