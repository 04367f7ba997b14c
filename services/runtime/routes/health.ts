/** GET /health: `{status}` (CONTRACT: the spec gives the runtime no health shape). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { RuntimeDeps } from './context.ts';

export function registerHealth(app: ServiceApp, deps: RuntimeDeps): void {
  app.get('/health', { schema: { summary: 'Liveness and the store', response: { 200: Type.Object({ status: Type.String() }) } } }, async () => {
    await deps.ctx.db.query('SELECT 1');
    return { status: 'ok' };
  });
}
