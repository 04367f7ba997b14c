/**
 * The licensing service (variants A and B, served together on one port, as the contract
 * says). Variant A: signed license artifacts under /api/v1/v2; variant B: license keys,
 * plans and the KMS under /api/v1.
 *
 * A light descriptor: listing the services (the CLI, migrations) loads only this file, its
 * plans and its migrations; `build()` loads the application (./app.ts) when the service starts.
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { licensingMigrations } from './migrations.ts';
import { LICENSING_PLANS } from './plans.ts';

export const licensingService: ServiceDefinition = {
  id: 'licensing',
  title: 'Licensing (variants A and B)',
  defaultPort: 8101,
  migrations: licensingMigrations,
  keyPrefix: 'lic',
  serviceTokenPrefix: 'lsvc',
  plans: LICENSING_PLANS,
  async build(ctx, options) {
    const { build } = await import('./app.ts');
    return build(ctx, options);
  },
};
