/**
 * GET /api/v2/status — the API's state, each backend's state, the number of jobs waiting or
 * running across all accounts (from the job table), and this process's measured average
 * response time. Public, like /health: it shows no account's data.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { listBackends } from '../catalog.ts';
import { responses } from '../errors.ts';
import type { CoreDeps } from './context.ts';

export function registerStatus(app: ServiceApp, deps: CoreDeps): void {
  app.get(
    '/api/v2/status',
    {
      schema: {
        tags: ['Status'],
        summary: 'API and backend status, queue depth and average response time',
        response: responses(
          Type.Object({
            api: Type.String({ description: '`operational`' }),
            backends: Type.Record(Type.String(), Type.String(), { description: 'backend id -> `online`' }),
            queue_depth: Type.Integer({ description: 'jobs of every account waiting or running now' }),
            queue_depths: Type.Record(Type.String(), Type.Integer(), { description: 'the same per backend' }),
            avg_response_time_ms: Type.Union([Type.Number(), Type.Null()], {
              description: 'mean time to answer over the last 1000 requests of this process; null before the first',
            }),
          }),
        ),
      },
    },
    async () => {
      const depths = await deps.jobs.queueDepths();
      const backends = listBackends();
      return ok({
        api: 'operational',
        backends: Object.fromEntries(backends.map((b) => [b.id, 'online'])),
        queue_depth: Object.values(depths).reduce((a, b) => a + b, 0),
        queue_depths: Object.fromEntries(backends.map((b) => [b.id, depths[b.id] ?? 0])),
        avg_response_time_ms: deps.responseTimes.average(),
      });
    },
  );
}
