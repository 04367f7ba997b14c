/** GET /health — liveness, and whether the quantum simulator behind the signatures really runs. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { TAG_B, type VariantBDeps } from './b-context.ts';

export function registerHealth(app: ServiceApp, deps: VariantBDeps): void {
  app.get(
    '/health',
    {
      schema: {
        tags: [TAG_B],
        summary: 'Health, including whether the quantum engine runs',
        response: {
          200: Type.Object({
            status: Type.String({ description: 'healthy, or degraded when the quantum engine does not run' }),
            service: Type.String(),
            qcos_available: Type.Boolean(),
            timestamp: Type.String(),
          }),
        },
      },
    },
    async () => {
      const available = await deps.probe.available();
      return {
        status: available ? 'healthy' : 'degraded',
        service: 'licensing',
        qcos_available: available,
        timestamp: deps.ctx.now().toISOString(),
      };
    },
  );
}
