/** GET /api/v1/models — the gateway's catalog (not filtered per key). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { GatewayError } from '../errors.ts';
import { TAG_API, bearerSecurity, identityOf, type GatewayDeps } from './context.ts';

const ModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Object({
      id: Type.String({ description: 'bare model id for the request body' }),
      object: Type.Literal('model'),
      owned_by: Type.String(),
      context_window: Type.Integer({ description: 'tokens' }),
    }),
  ),
});

export function registerModels(app: ServiceApp, deps: GatewayDeps): void {
  app.get(
    '/api/v1/models',
    {
      onRequest: deps.apiKey('models:read'),
      schema: { tags: [TAG_API], summary: 'The model catalog', security: bearerSecurity, response: { 200: ModelList, '4xx': GatewayError } },
    },
    async (req, reply) => {
      await deps.gateway.requireCredit(identityOf(req));
      reply.header('x-service-request-id', `models-${req.id}`);
      return {
        object: 'list' as const,
        data: deps.gateway.catalog.models.map((m) => ({ id: m.id, object: 'model' as const, owned_by: m.ownedBy, context_window: m.contextWindow })),
      };
    },
  );
}
