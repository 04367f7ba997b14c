/** GET /health — unauthenticated: the service status, version and the state of the job workers. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { QuantumWorkers } from '../../../platform/quantum-jobs/index.ts';

export function registerHealth(app: ServiceApp, workers: QuantumWorkers): void {
  app.get(
    '/health',
    {
      schema: {
        tags: ['Service'],
        summary: 'Service health',
        response: {
          200: Type.Object({
            status: Type.String(),
            version: Type.String(),
            workers: Type.Integer({ description: 'Worker threads of this process' }),
            running_jobs: Type.Integer({ description: 'Jobs this process runs now' }),
          }),
        },
      },
    },
    async () => ({ status: 'healthy', version: '2.1.0', workers: workers.pool.size, running_jobs: workers.runner.activeCount() }),
  );
}
