/** GET /health — `{status}` (the spec gives no shape), with the catalog's size. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { GatewayDeps } from './context.ts';

export function registerHealth(app: ServiceApp, deps: GatewayDeps): void {
  app.get(
    '/health',
    { schema: { tags: ['Health'], summary: 'Liveness and database reachability', response: { 200: Type.Object({ status: Type.String(), models: Type.Integer() }), 503: Type.Object({ status: Type.String(), models: Type.Integer() }) } } },
    async (_req, reply) => {
      const models = deps.gateway.catalog.models.length;
      try {
        await deps.ctx.db.query('SELECT 1');
      } catch {
        return reply.code(503).send({ status: 'database_unavailable', models });
      }
      return { status: models > 0 ? 'ok' : 'no_models', models };
    },
  );
}
