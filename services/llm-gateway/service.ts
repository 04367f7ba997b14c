/**
 * The language-model gateway, variant P (CONTRACT: id `llm-gateway`, port 8201): an
 * OpenAI-compatible chat completions API under /api/v1 paid from the workspace's prepaid
 * credits, and the console (API under /api, web page at /) for API keys, balance and spend.
 *
 * A light descriptor: `build()` loads the application (./app.ts) when the service starts.
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { gatewayMigrations } from './migrations.ts';
import { GATEWAY_KEY_PREFIX, GATEWAY_SCOPES } from './scopes.ts';

export const llmGatewayService: ServiceDefinition = {
  id: 'llm-gateway',
  title: 'Language-model gateway (variant P)',
  defaultPort: 8201,
  migrations: gatewayMigrations,
  keyPrefix: GATEWAY_KEY_PREFIX,
  plans: [{ name: 'standard' }],
  scopes: GATEWAY_SCOPES,
  // Both by default (CONTRACT); `--scopes` picks others.
  defaultScopes: GATEWAY_SCOPES,
  async build(ctx, options) {
    const { build } = await import('./app.ts');
    return build(ctx, options);
  },
};
