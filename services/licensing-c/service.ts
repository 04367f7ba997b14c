/**
 * Licensing variant C as its own service (CONTRACT: id `licensing-c`, port 8102): customer
 * registration with bearer keys shown once, license generation and validation with
 * quantum-derived signatures, per-plan monthly limits and request rates, SDK information.
 *
 * A light descriptor: `build()` loads the application (./app.ts) when the service starts.
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { licensingCMigrations } from './migrations.ts';
import { C_KEY_PREFIX, C_PLANS } from './plans.ts';

export const licensingCService: ServiceDefinition = {
  id: 'licensing-c',
  title: 'Licensing (variant C)',
  defaultPort: 8102,
  migrations: licensingCMigrations,
  keyPrefix: C_KEY_PREFIX,
  plans: C_PLANS,
  async build(ctx, options) {
    const { build } = await import('./app.ts');
    return build(ctx, options);
  },
};
