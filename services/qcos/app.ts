/** Builds the qcos app: routes, the job workers, and webhooks for job.completed / job.failed. */
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { usageBatchFor } from '../../platform/identity/usage-batch.ts';
import { startQuantumWorkers, type QuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { emitEvent, startWebhookDelivery } from '../../platform/webhooks/index.ts';
import { startWorkersLater } from '../../platform/jobs/background.ts';
import { qcosAuth } from './auth.ts';
import { formatQcosError, QcosError } from './errors.ts';
import { CircuitIn, JobOut, ResultsOut, SubmitOut } from './schemas.ts';
import { registerAccount } from './routes/account.ts';
import { BackendDetail, BackendItem, registerBackends } from './routes/backends.ts';
import { registerCircuits } from './routes/circuits.ts';
import type { QcosDeps } from './routes/context.ts';
import { registerHealth } from './routes/health.ts';
import { registerJobs } from './routes/jobs.ts';
import { registerList } from './routes/list.ts';
import { registerOptimize } from './routes/optimize.ts';
import { registerPage } from './routes/page.ts';
import { registerSimulate } from './routes/simulate.ts';
import { registerWebhooks } from './routes/webhooks.ts';

/** The routes' dependencies, and the workers the health route reports on. */
type QcosParts = QcosDeps & { workers: QuantumWorkers };

export async function buildQcos(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp> {
  return mountService<QcosParts>(options.prefix, {
    app: {
      bodyLimit: 1024 * 1024,
      formatError: formatQcosError,
      docs: {
        title: 'Lattice QCOS — circuit job API (interface 1)',
        version: '2.1.0',
        description:
          'Submit OpenQASM 2/3 circuits to simulators and emulated devices, optimize and simulate them, follow jobs, ' +
          'see usage and quotas, and receive webhooks. Every error is `{error: {code, message, details}, request_id}`.',
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
    },
    schemas: [QcosError, CircuitIn, JobOut, SubmitOut, ResultsOut, BackendItem, BackendDetail],
    async start(app) {
      const workers = await startQuantumWorkers(ctx);
      // The delivery worker starts after the service answers (it starts the job queue); /ready waits for it.
      void startWorkersLater(ctx, 'qcos webhook delivery', () => startWebhookDelivery(ctx));
      // job.completed / job.failed of circuit jobs (not of optimize or simulate calls, which answer at once).
      workers.onJobFinished('qcos', async (_jobCtx, job) => {
        if (job.kind !== 'run' || job.status === 'cancelled') return;
        await emitEvent(ctx, {
          service: 'qcos',
          accountId: job.accountId,
          event: `job.${job.status}`,
          data: { job_id: job.id, status: job.status, backend: job.backend },
          createdAt: job.finishedAt ?? undefined,
        });
      });
      const stop = async (): Promise<void> => {
        await workers.release();
        // The month's request counts still in memory (platform/identity/usage-batch.ts).
        await usageBatchFor(ctx.db).close();
      };
      return { deps: { ctx, auth: qcosAuth(ctx), workers }, stop };
    },
    routes: [
      (s, parts) => registerHealth(s, parts.workers),
      registerCircuits,
      registerJobs,
      registerList,
      registerBackends,
      registerOptimize,
      registerSimulate,
      registerAccount,
      registerWebhooks,
    ],
    // The jobs page and its assets name their full paths (the asset URLs carry the prefix).
    pages: [registerPage],
  });
}
