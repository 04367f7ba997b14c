/**
 * The core API (quantum interface 3) as its own service (CONTRACT: id `core`, port 8303,
 * paths `/api/v2/...`, the `{success, data}` envelope): optimize jobs and batches on the
 * shared quantum job system, backends and their calibration, signed evidence bundles.
 * This descriptor stays light; `build` loads the routes and engines.
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { coreMigrations } from './migrations.ts';
import { CORE_KEY_PREFIX } from './keys.ts';
import { CORE_PLANS } from '../../platform/quantum-jobs/plans.ts';

export const coreService: ServiceDefinition = {
  id: 'core',
  title: 'Quantum core API (interface 3)',
  defaultPort: 8303,
  migrations: coreMigrations,
  keyPrefix: CORE_KEY_PREFIX,
  plans: CORE_PLANS,
  async build(ctx, options) {
    const { buildCoreApp } = await import('./app.ts');
    return buildCoreApp(ctx, options);
  },
};
