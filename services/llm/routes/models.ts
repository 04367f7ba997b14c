/** GET /v1/models — the configured models and the built-in rerank tiers, each with its context and what it is for. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { BUILTIN_MODEL_ID, type Capability, type ModelConfig } from '../../../engines/language/config.ts';
import { commonErrors } from '../errors.ts';
import { begin, bearerSecurity, TAG, type QDeps } from './context.ts';
import { MAX_TEXT_CHARS } from './schemas.ts';

/** The built-in model's context (engines/language README: 256 tokens). */
const BUILTIN_CONTEXT = 256;
/** A local model's context when none is configured: the provider caps the model's own at this. */
const LOCAL_DEFAULT_CONTEXT = 4096;
const STARTED = Math.floor(Date.now() / 1000);

const USES: Record<Capability, string> = {
  chat: 'chat completions (/v1/chat/completions)',
  embed: 'embeddings (/v1/embeddings)',
  rerank: 'document rerank (/v1/rerank, and use_rerank in chat)',
};

/** What the registry serves the model for (engines/language/registry.ts `list`). */
function capabilitiesOf(m: ModelConfig): Capability[] {
  return m.capabilities ?? (m.provider === 'rerank-http' ? ['rerank'] : ['chat', 'embed']);
}

/**
 * The longest input in the model's tokens; the classic models read a whole text, so theirs
 * is the routes' cap per text (characters).
 */
function contextOf(m: ModelConfig): number {
  if (m.id === BUILTIN_MODEL_ID) return BUILTIN_CONTEXT;
  if (m.context_size) return m.context_size;
  return m.provider === 'classic' ? MAX_TEXT_CHARS : LOCAL_DEFAULT_CONTEXT;
}

function describe(m: ModelConfig, caps: Capability[]): string {
  const who =
    m.id === BUILTIN_MODEL_ID
      ? 'The built-in smoke-test model (a tiny model that makes test replies, not useful answers)'
      : m.provider === 'classic'
        ? caps.includes('embed')
          ? 'Classic embedding: feature hashing of word stems, 512 dimensions, no model file'
          : 'Classic rerank tier: a learned linear ranker over BM25 and term-proximity features'
        : m.provider === 'local'
          ? 'A local GGUF model'
          : 'A model of an upstream server';
  return `${who}; for ${caps.map((c) => USES[c]).join(', ')}.`;
}

const Entry = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  context_length: Type.Integer({
    minimum: 1,
    description: `Longest input in the model's tokens; for the classic and quantum tiers, which read a whole text, the routes' cap of ${MAX_TEXT_CHARS} characters per text`,
  }),
  capabilities: Type.Array(Type.Union([Type.Literal('chat'), Type.Literal('embed'), Type.Literal('rerank')]), { description: 'What the model serves: chat, embed, rerank' }),
  description: Type.String({ description: 'What the model is and what it is for, in words' }),
});

export function registerModels(app: ServiceApp, deps: QDeps): void {
  app.get(
    '/v1/models',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.inference],
        summary: 'Models and rerank tiers',
        security: bearerSecurity,
        response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(Entry) }), ...commonErrors },
      },
    },
    async (req) => {
      await begin(deps, req);
      const models = deps.language.config.models.map((m) => {
        const capabilities = capabilitiesOf(m);
        return {
          id: m.id,
          object: 'model' as const,
          created: STARTED,
          owned_by: m.provider === 'openai' || m.provider === 'rerank-http' ? 'upstream' : 'lattice',
          context_length: contextOf(m),
          capabilities,
          description: describe(m, capabilities),
        };
      });
      const tiers = (['quantum_cpu', 'quantum_gpu'] as const).map((id) => ({
        id,
        object: 'model' as const,
        created: STARTED,
        owned_by: 'lattice',
        context_length: MAX_TEXT_CHARS,
        capabilities: ['rerank' as const],
        description:
          `Quantum rerank tier: the classic tier's score plus a fidelity kernel run on the project's statevector simulator` +
          `${id === 'quantum_gpu' ? ' (no GPU simulator exists here, so it runs on the CPU and says so in meta.device)' : ''}` +
          `; for ${USES.rerank}; needs an X-License-Key with quantum_rerank.`,
      }));
      return { object: 'list' as const, data: [...models, ...tiers] };
    },
  );
}
