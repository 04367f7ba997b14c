/** GET /health: liveness without the envelope, with the live source's state. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { NavDeps } from './context.ts';

const Health = Type.Object({
  status: Type.String({ description: '`healthy`, or `degraded` while the source is lost' }),
  timestamp: Type.String(),
  source: Type.Object({
    kind: Type.String({ description: 'simulator, gpsd or log' }),
    description: Type.String(),
    connected: Type.Boolean(),
    message: Type.String(),
    last_epoch_age_ms: Type.Union([Type.Number(), Type.Null()]),
  }),
});

export function registerHealth(app: ServiceApp, deps: NavDeps): void {
  app.get(
    '/health',
    { schema: { tags: ['Status'], summary: 'Liveness and the live source', response: { 200: Health, 503: Health } } },
    async (_req, reply) => {
      const source = deps.receiver.sourceStatus;
      let dbOk = true;
      try {
        await deps.ctx.db.query('SELECT 1');
      } catch {
        dbOk = false;
      }
      const body = { status: !dbOk ? 'unhealthy' : source.connected ? 'healthy' : 'degraded', timestamp: deps.ctx.now().toISOString(), source };
      return reply.code(dbOk ? 200 : 503).send(body);
    },
  );
}
