/**
 * The language API's application (variant Q): routes, the language engine, the training
 * worker and webhook delivery. Loaded by `build()` in service.ts only when the service starts.
 */
import { followTenantChanges } from './tenants.ts';
import { startLeaderLoop } from '../../platform/cluster/loop.ts';
import { startWorkersLater } from '../../platform/jobs/background.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { requireKey } from '../../platform/http/auth.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { loadConfig } from '../../engines/language/config.ts';
import { DatasetIndexes } from './datasets.ts';
import { formatQError, QError, qError } from './errors.ts';
import { Events } from './events.ts';
import { Language } from './language.ts';
import { QLimits } from './limits.ts';
import { Q_KEY_PREFIX } from './plans.ts';
import type { QDeps } from './routes/context.ts';
import { registerAdminUsage } from './routes/admin-usage.ts';
import { registerChat } from './routes/chat.ts';
import { registerDatasets } from './routes/datasets.ts';
import { registerDatasetUploads } from './routes/dataset-uploads.ts';
import { registerEmbeddings } from './routes/embeddings.ts';
import { registerFeedback } from './routes/feedback.ts';
import { registerHealth } from './routes/health.ts';
import { registerModels } from './routes/models.ts';
import { registerRerank } from './routes/rerank.ts';
import { registerSettings } from './routes/settings.ts';
import { registerTenants } from './routes/tenants.ts';
import { registerTraining } from './routes/training.ts';
import { registerWebhooks } from './routes/webhooks.ts';
import { Adapters } from './training/adapters.ts';
import { RECOVER_MS } from './training/lease.ts';
import { Trainer } from './training/runner.ts';

/** Largest request body: 8 MiB, enough for a document upload of a few thousand pages; a larger one is refused whole. */
export const BODY_LIMIT = 8 * 1024 * 1024;

export async function build(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp> {
  return mountService<QDeps>(options.prefix, {
    app: {
      bodyLimit: BODY_LIMIT,
      formatError: formatQError,
      docs: {
        title: 'Lattice language API (variant Q)',
        version: '2.1.0',
        description:
          'Multi-tenant language API: chat completions (OpenAI-compatible, with optional candidate reranking), embeddings, ' +
          'rerank (classic and quantum-kernel tiers), tenants with settings, feedback, retrieval datasets (documents and tables, ' +
          'hybrid BM25 + dense search), LoRA training from feedback, webhooks, limits per tier, admin usage and health. ' +
          'Errors are `{error: {code, message, retry_after}, request_id}`. Licensed features (quantum rerank tiers, LoRA ' +
          'training) need an `X-License-Key` that carries them.',
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: `An admin key (\`lattice keys create --service llm --role admin\`) or a tenant key (${Q_KEY_PREFIX}_..., returned when the tenant is created)` },
        },
      },
    },
    schemas: [QError],
    async start(app) {
      const events = new Events(ctx);
      const adapters = new Adapters(ctx.db, ctx.dataDir);
      const language = new Language(loadConfig());
      // Under `lattice serve` the default chat model loads once every service listens, with /ready
      // at 503 until it has (and /health saying `starting`), instead of on the first request that
      // needs it. A model that cannot load is for /health to report, not a failed start.
      const chatModel = language.model(language.config.default_chat_model, 'chat');
      let warming = ctx.warmUp === true && chatModel.provider === 'local';
      if (warming) {
        void startWorkersLater(ctx, 'the default chat model', async () => {
          const { loadModel } = await import('../../engines/language/local/runtime.ts');
          await loadModel(chatModel.path ?? '').catch(() => undefined);
          warming = false;
        });
      }
      const trainer = new Trainer(ctx, adapters);
      const limits = new QLimits(ctx.db);
      // The webhook and training workers start the job queue: after the service answers, with
      // /ready at 503 until they run (platform/jobs/background.ts). Sending a job or an event
      // before then starts the queue itself and the message waits for its worker.
      void startWorkersLater(ctx, 'llm queue workers', async () => {
        await events.start();
        await trainer.start();
      });
      // One process of the cluster re-queues the training jobs of processes that died (their lease ran out).
      const trainingLeases = await startLeaderLoop(ctx.db, 'llm-training-leases', RECOVER_MS, () => trainer.recover(), app.log);
      // Tenant settings changed by another process of the cluster reach this one's cache at once.
      const stopFollowingTenants = await followTenantChanges(ctx.db);

      const deps: QDeps = {
        ctx,
        language,
        adapters,
        events,
        trainer,
        datasets: new DatasetIndexes(ctx.db),
        limits,
        warmingUp: () => warming,
        bearerAuth: requireKey({
          db: ctx.db,
          service: 'llm',
          header: 'bearer',
          unauthorized: () => qError('UNAUTHORIZED', 'Missing or invalid API key'),
        }),
      };
      const stop = async (): Promise<void> => {
        stopFollowingTenants();
        await trainingLeases.stop();
        // A worker start not yet run finds the trainer stopping and takes no job; the queue's stop waits for it.
        trainer.stop();
        await language.close();
        await limits.close();
        adapters.close();
      };
      return { deps, stop };
    },
    routes: [
      registerHealth,
      registerModels,
      registerChat,
      registerEmbeddings,
      registerRerank,
      registerTenants,
      registerSettings,
      registerFeedback,
      registerDatasets,
      registerDatasetUploads,
      registerTraining,
      registerAdminUsage,
      registerWebhooks,
    ],
  });
}
