/**
 * Quantum interface 6 as its own service (CONTRACT: id `runtime`, port 8306, paths
 * `/api/v1/runtime/...`, `Authorization: Bearer`): runtime jobs priced from their circuit,
 * approval of priced jobs with a token, credit holds settled on completion, sealed execution
 * evidence, and the viewer / developer / admin roles. A light descriptor: routes load in build().
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { runtimeMigrations } from './migrations.ts';
import { RUNTIME_KEY_PREFIX, RUNTIME_PLANS, RUNTIME_ROLES } from './plans.ts';

export const runtimeService: ServiceDefinition = {
  id: 'runtime',
  title: 'Quantum runtime jobs with approvals (interface 6)',
  defaultPort: 8306,
  migrations: runtimeMigrations,
  keyPrefix: RUNTIME_KEY_PREFIX,
  plans: RUNTIME_PLANS,
  roles: RUNTIME_ROLES,
  async build(ctx, options) {
    const { buildRuntime } = await import('./app.ts');
    return buildRuntime(ctx, options);
  },
};
