/** GET /health — liveness, and whether the quantum simulator behind the signatures really runs. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { TAG, type CDeps } from './context.ts';

export function registerHealth(app: ServiceApp, deps: CDeps): void {
  app.get(
    '/health',
    {
      schema: {
        tags: [TAG],
        summary: 'Health, including whether the quantum engine runs',
        response: {
          200: Type.Object({
            status: Type.String({ description: 'healthy, or degraded when the quantum engine does not run' }),
            timestamp: Type.String(),
            quantum_ready: Type.Boolean(),
          }),
        },
      },
    },
    async () => {
      const ready = await deps.probe.available();
      return { status: ready ? 'healthy' : 'degraded', timestamp: deps.ctx.now().toISOString(), quantum_ready: ready };
    },
  );
}
