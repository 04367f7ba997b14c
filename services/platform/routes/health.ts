/** GET /health — unauthenticated: status, version, the sandbox and the runners of this process. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { QuantumWorkers } from '../../../platform/quantum-jobs/index.ts';
import { hostGpus, sandboxAvailable } from '../sandbox.ts';
import type { PlatformDeps } from './context.ts';

export function registerHealth(app: ServiceApp, deps: PlatformDeps, workers: QuantumWorkers): void {
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
            sandbox: Type.String({ description: '`ready`, or `unavailable` when prlimit is missing (CPU and GPU jobs are refused)' }),
            gpus: Type.Integer({ description: 'GPUs of this host; GPU jobs run on the CPU when 0' }),
            compute_slots: Type.Integer(),
            running_compute_jobs: Type.Integer(),
            running_quantum_jobs: Type.Integer(),
          }),
        },
      },
    },
    async () => ({
      status: 'healthy',
      version: '1.0.0',
      sandbox: sandboxAvailable() ? 'ready' : 'unavailable',
      gpus: hostGpus(),
      compute_slots: deps.compute.slots,
      running_compute_jobs: deps.compute.activeCount(),
      running_quantum_jobs: workers.runner.activeCount(),
    }),
  );
}
