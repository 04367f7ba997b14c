/**
 * Quantum interface 5 as its own service (CONTRACT: id `platform`, port 8305, paths
 * `/api/v1/platform/...`, `Authorization: Bearer`): quantum circuits, CPU and GPU jobs with
 * free, prepaid or pay-as-you-go billing, idempotent submission and signed evidence. A light
 * descriptor: the routes, the job system and the sandbox load in build().
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { platformMigrations } from './migrations.ts';
import { PLATFORM_PLANS } from './plans.ts';

export const platformService: ServiceDefinition = {
  id: 'platform',
  title: 'Platform execution (quantum interface 5)',
  defaultPort: 8305,
  migrations: platformMigrations,
  keyPrefix: 'lplat',
  plans: PLATFORM_PLANS,
  async build(ctx, options) {
    const { buildPlatform } = await import('./app.ts');
    return buildPlatform(ctx, options);
  },
};
