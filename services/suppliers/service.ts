/**
 * Quantum interface 2 (the multi-supplier API) with interface 4's catalog routes under
 * /api/v1, as one service (CONTRACT: id `suppliers`, port 8302, `X-API-Key` or
 * `Authorization: Bearer`). A light descriptor: the routes, adapters and engine load in build().
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { supplierMigrations } from './migrations.ts';
import { SUPPLIER_PLANS } from '../../platform/quantum-jobs/plans.ts';

export const suppliersService: ServiceDefinition = {
  id: 'suppliers',
  title: 'Multi-supplier quantum API (interfaces 2 and 4)',
  defaultPort: 8302,
  migrations: supplierMigrations,
  keyPrefix: 'qsup',
  plans: SUPPLIER_PLANS,
  async build(ctx, options) {
    const { buildSuppliers } = await import('./app.ts');
    return buildSuppliers(ctx, options);
  },
};
