/**
 * The multi-tenant language API, variant Q (CONTRACT: id `llm`, port 8202, paths `/v1/...`):
 * tenants with settings and their own keys, chat with candidate reranking, embeddings,
 * rerank, retrieval datasets, feedback, LoRA training from feedback, webhooks, limits per
 * tier, usage and health.
 *
 * A light descriptor: `build()` loads the application (./app.ts) when the service starts.
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { llmMigrations } from './migrations.ts';
import { Q_KEY_PREFIX, Q_PLANS } from './plans.ts';

export const llmService: ServiceDefinition = {
  id: 'llm',
  title: 'Language-model API (variant Q)',
  defaultPort: 8202,
  migrations: llmMigrations,
  keyPrefix: Q_KEY_PREFIX,
  plans: Q_PLANS,
  async build(ctx, options) {
    const { build } = await import('./app.ts');
    return build(ctx, options);
  },
};
