/** Builds the qcos app: routes, the job workers, and webhooks for job.completed / job.failed. */
import { createServiceApp, type ServiceApp } from '../../platform/http/app.ts';
import { startLeaderLoop } from '../../platform/cluster/loop.ts';
import { startQuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { emitEvent, startWebhookDelivery } from '../../platform/webhooks/index.ts';
import { pruneMinuteCounters, qcosAuth } from './auth.ts';
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

export async function buildQcos(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp> {
  const app = await createServiceApp({
    prefix: options.prefix,
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
  });
  // Shared schemas go on the root instance: a child context that adds schemas gets a validator
  // of its own, which would coerce JSON bodies.
  for (const s of [QcosError, CircuitIn, JobOut, SubmitOut, ResultsOut, BackendItem, BackendDetail]) app.addSchema(s);

  const workers = await startQuantumWorkers(ctx);
  await startWebhookDelivery(ctx);
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
  // One process of the cluster prunes old minute counters.
  const prune = await startLeaderLoop(ctx.db, 'qcos-prune-counters', 10 * 60_000, () => pruneMinuteCounters(ctx), app.log);
  app.addHook('onClose', async () => {
    await prune.stop();
    await workers.release();
  });

  const deps: QcosDeps = { ctx, auth: qcosAuth(ctx) };
  await app.register(
    async (scope) => {
      const s = scope as unknown as ServiceApp;
      registerHealth(s, workers);
      registerCircuits(s, deps);
      registerJobs(s, deps);
      registerList(s, deps);
      registerBackends(s, deps);
      registerOptimize(s, deps);
      registerSimulate(s, deps);
      registerAccount(s, deps);
      registerWebhooks(s, deps);
    },
    { prefix: options.prefix },
  );
  // The jobs page and its assets name their full paths (the asset URLs carry the prefix).
  await registerPage(app, deps, options.prefix);
  return app;
}
