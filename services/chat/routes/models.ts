/** GET /api/models — the public catalog of the chat application (spec, "Chat catalog"): no key, six entries. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { CATALOG } from '../catalog.ts';
import { TAG } from './context.ts';

export const CatalogEntry = Type.Object(
  {
    id: Type.String({ description: 'Chat model id, `<prefix>:<id>`', examples: ['lattice:compact'] }),
    name: Type.String(),
    description: Type.String(),
    contextWindow: Type.Integer({ description: 'Context size in tokens' }),
    inputCost: Type.Number({ description: 'US dollars per million input tokens' }),
    outputCost: Type.Number({ description: 'US dollars per million output tokens' }),
  },
  { $id: 'ChatCatalogEntry' },
);

export function registerModels(app: ServiceApp): void {
  app.get(
    '/api/models',
    {
      schema: {
        tags: [TAG],
        summary: 'The models a chat can use (public)',
        description: 'Six catalog entries with context sizes and prices (US dollars per million tokens). Needs no sign-in.',
        response: { 200: Type.Array(CatalogEntry) },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return CATALOG.map(({ id, name, description, contextWindow, inputCost, outputCost }) => ({
        id,
        name,
        description,
        contextWindow,
        inputCost,
        outputCost,
      }));
    },
  );
}
