/** GET /v1/models — the configured models and the built-in rerank tiers, with capabilities. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { BUILTIN_MODEL_ID } from '../../../engines/language/config.ts';
import { commonErrors } from '../errors.ts';
import { begin, bearerSecurity, TAG, type QDeps } from './context.ts';

/** The built-in model's context (engines/language README: 256 tokens). */
const BUILTIN_CONTEXT = 256;
const STARTED = Math.floor(Date.now() / 1000);

export function registerModels(app: ServiceApp, deps: QDeps): void {
  app.get(
    '/v1/models',
    {
      preHandler: deps.bearerAuth,
      schema: {
        tags: [TAG.inference],
        summary: 'Models and rerank tiers',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            object: Type.Literal('list'),
            data: Type.Array(
              Type.Object({
                id: Type.String(),
                object: Type.Literal('model'),
                created: Type.Integer(),
                owned_by: Type.String(),
                context_length: Type.Integer(),
                capabilities: Type.Array(Type.String(), { description: 'chat, embed, rerank' }),
              }),
            ),
          }),
          ...commonErrors,
        },
      },
    },
    async (req) => {
      await begin(deps, req);
      const models = deps.language.config.models.map((m) => ({
        id: m.id,
        object: 'model' as const,
        created: STARTED,
        owned_by: m.provider === 'openai' || m.provider === 'rerank-http' ? 'upstream' : 'lattice',
        context_length: m.id === BUILTIN_MODEL_ID ? BUILTIN_CONTEXT : (m.context_size ?? (m.provider === 'classic' ? 0 : 4096)),
        capabilities: m.capabilities ?? (m.provider === 'rerank-http' ? ['rerank'] : ['chat', 'embed']),
      }));
      const tiers = ['quantum_cpu', 'quantum_gpu'].map((id) => ({ id, object: 'model' as const, created: STARTED, owned_by: 'lattice', context_length: 0, capabilities: ['rerank'] }));
      return { object: 'list' as const, data: [...models, ...tiers] };
    },
  );
}
