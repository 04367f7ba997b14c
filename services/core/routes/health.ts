/** GET /health — liveness without the envelope (the spec's one exception). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { CoreDeps } from './context.ts';

export function registerHealth(app: ServiceApp, deps: CoreDeps): void {
  app.get(
    '/health',
    {
      schema: {
        tags: ['Status'],
        summary: 'Liveness: answers while the service can reach its store',
        response: {
          200: Type.Object({ status: Type.String({ description: '`healthy`' }), timestamp: Type.String() }),
          503: Type.Object({ status: Type.String({ description: '`unhealthy` when the store does not answer' }), timestamp: Type.String() }),
        },
      },
    },
    async (_req, reply) => {
      const timestamp = deps.ctx.now().toISOString();
      try {
        await deps.ctx.db.query('SELECT 1');
        return { status: 'healthy', timestamp };
      } catch {
        return reply.code(503).send({ status: 'unhealthy', timestamp });
      }
    },
  );
}
