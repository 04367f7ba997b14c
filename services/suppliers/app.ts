/**
 * Builds the suppliers app: the adapters chosen by configuration, the job workers, the end of
 * emulated jobs (settlement, provenance, webhooks), a poller for remote jobs, the repair of
 * holds left by a previous process, and every route of interfaces 2 and 4.
 */
import { extendHold, repairHolds } from '../../platform/billing/index.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { startLeaderLoop } from '../../platform/cluster/loop.ts';
import { startQuantumWorkers, type QuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { startWebhookDelivery } from '../../platform/webhooks/index.ts';
import { startWorkersLater } from '../../platform/jobs/background.ts';
import { buildAdapters } from './adapters/index.ts';
import { suppliersAuth } from './auth.ts';
import { answerCancelRequests } from './cancel-requests.ts';
import { loadSuppliersConfig, type SuppliersConfig } from './config.ts';
import { formatSupplierError, SupplierErrorBody, supplierOfPath } from './errors.ts';
import { HOLD_HOURS, ownerName, refresh, SERVICE, type Deps } from './jobs.ts';
import { registerBatch } from './routes/batch.ts';
import { registerCatalog } from './routes/catalog.ts';
import { registerCredits } from './routes/credits.ts';
import { registerEstimate } from './routes/estimate.ts';
import { registerHealth } from './routes/health.ts';
import { registerHistory } from './routes/history.ts';
import { registerLegacy } from './routes/legacy.ts';
import { registerProvenance } from './routes/provenance.ts';
import { registerReports } from './routes/reports.ts';
import { registerSupplierA } from './routes/supplier-a.ts';
import { registerSupplierB } from './routes/supplier-b.ts';
import { registerSupplierC } from './routes/supplier-c.ts';
import { registerSuppliersStatus } from './routes/suppliers-status.ts';
import { registerValidate } from './routes/validate.ts';
import { registerWebhooks } from './routes/webhooks.ts';
import { jobByQuantumId, jobById, staleRemoteJobs, touchJob } from './store.ts';

export async function buildSuppliers(ctx: ServiceContext, options: { prefix: string }, config: SuppliersConfig = loadSuppliersConfig()): Promise<ServiceApp> {
  return mountService<Deps & { workers: QuantumWorkers }>(options.prefix, {
    app: {
      bodyLimit: 1024 * 1024,
      validationStatus: 422,
      formatError: formatSupplierError,
      docs: {
        title: 'Lattice multi-supplier quantum API (interfaces 2 and 4)',
        version: '2.1.0',
        description:
          'Estimate, run and follow circuits on three quantum suppliers and the HPC GPU simulator, with the catalog routes of interface 4 ' +
          '(unified backends, validation, pricing, credits, history, batches, webhooks, reports, provenance). ' +
          'Every error is `{detail, error_code, supplier, request_id}`.',
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    schemas: [SupplierErrorBody],
    async start(app) {
      // Every error names the supplier whose route answered, including those raised before a
      // route ran (validation, malformed JSON), which cannot know it themselves.
      app.addHook('onSend', async (req, reply, payload) => {
        if (reply.statusCode < 400 || typeof payload !== 'string' || !payload.includes('"error_code"')) return payload;
        try {
          const body = JSON.parse(payload) as Record<string, unknown>;
          if (body.supplier === null) body.supplier = supplierOfPath(req.url.split('?')[0]!.slice(options.prefix.length));
          return JSON.stringify(body);
        } catch {
          return payload;
        }
      });

      const workers = await startQuantumWorkers(ctx);
      // The delivery worker starts after the service answers (it starts the job queue); /ready waits for it.
      void startWorkersLater(ctx, 'suppliers webhook delivery', () => startWebhookDelivery(ctx));
      const deps: Deps = { ctx, config, adapters: buildAdapters(ctx, config), owner: ownerName(), auth: suppliersAuth(ctx) };
      // The end of an emulated job on this store settles it with this app's adapters; release() unwires it.
      workers.onJobFinished(SERVICE, async (_jobCtx, q) => {
        const job = await jobByQuantumId(ctx.db, q.id);
        if (job) await refresh(deps, job);
      });

      // Holds of a previous process: settled or released by what their job became.
      await repairHolds(ctx.db, {
        service: SERVICE,
        now: ctx.now(),
        resolve: async (hold) => {
          const job = await jobById(ctx.db, hold.reference);
          if (!job) return { release: true };
          const now = await refresh(deps, job).catch(() => job);
          if (now.status === 'completed') return { settle: now.chargedMicros ?? now.estimatedMicros };
          if (now.status === 'failed' || now.status === 'cancelled') return { release: true };
          await extendHold(ctx.db, hold.id, new Date(ctx.now().getTime() + HOLD_HOURS * 3_600_000));
          return null;
        },
      });

      // Remote jobs end at their supplier: one process of the cluster polls the active ones so that
      // holds settle and webhooks go out, and answers the cancels another service asked for on a
      // job's row (the quantum jobs page: cancel-requests.ts).
      const poller = await startLeaderLoop(
        ctx.db,
        'suppliers-poll-remote-jobs',
        config.pollIntervalMs,
        async () => {
          const stale = await staleRemoteJobs(ctx.db, new Date(ctx.now().getTime() - config.pollIntervalMs));
          for (const job of stale) {
            await touchJob(ctx.db, job.id, ctx.now());
            await refresh(deps, job).catch(() => {});
          }
          await answerCancelRequests(deps, { warn: (line) => app.log.warn(line) });
        },
        app.log,
      );
      const stop = async (): Promise<void> => {
        await poller.stop();
        await workers.release();
      };
      return { deps: { ...deps, workers }, stop };
    },
    routes: [
      (app, deps) => registerHealth(app, deps, deps.workers),
      registerSupplierA,
      registerSupplierB,
      registerSupplierC,
      registerLegacy,
      registerSuppliersStatus,
      registerCatalog,
      registerValidate,
      registerEstimate,
      registerCredits,
      registerHistory,
      registerBatch,
      registerWebhooks,
      registerReports,
      registerProvenance,
    ],
  });
}
