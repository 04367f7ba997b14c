/**
 * GET /health (no key needed, for monitors): interface 2's `status`, `version` 2.1 and
 * `suppliers` map, and interface 4's health of the macro services (database, job workers,
 * webhook delivery). A supplier reads `configured` when it has credentials or is emulated,
 * `needs_token` only when it has no credentials and emulation is switched off (CONTRACT).
 */
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { QuantumWorkers } from '../../../platform/quantum-jobs/index.ts';
import { SUPPLIER_IDS } from '../config.ts';
import type { Deps } from '../jobs.ts';

export function registerHealth(app: ServiceApp, deps: Deps, workers: QuantumWorkers): void {
  app.get('/health', { schema: { tags: ['Service'], summary: 'Service health (no key needed)' } }, async (_req, reply) => {
    let database: 'ok' | 'unavailable' = 'ok';
    try {
      await deps.ctx.db.query('SELECT 1');
    } catch {
      database = 'unavailable';
    }
    const suppliers = Object.fromEntries(SUPPLIER_IDS.map((id) => [id, deps.adapters[id].mode === 'disabled' ? 'needs_token' : 'configured']));
    const modes = Object.fromEntries(SUPPLIER_IDS.map((id) => [id, deps.adapters[id].mode]));
    const healthy = database === 'ok';
    if (!healthy) reply.code(503);
    return {
      status: healthy ? 'healthy' : 'degraded',
      version: '2.1',
      suppliers,
      modes,
      services: {
        database,
        job_workers: { status: 'ok', workers: workers.pool.size, running_jobs: workers.runner.activeCount() },
        webhooks: 'ok',
      },
    };
  });
}
