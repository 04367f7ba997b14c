/** GET /health — the chat application is up and its database answers. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { ChatDeps } from './context.ts';

export function registerHealth(app: ServiceApp, deps: ChatDeps): void {
  app.get(
    '/health',
    { schema: { tags: ['health'], summary: 'Service health', response: { 200: Type.Object({ status: Type.String() }) } } },
    async () => {
      await deps.ctx.db.query('SELECT 1');
      return { status: 'ok' };
    },
  );
}
