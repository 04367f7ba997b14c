/**
 * Quantum interface 1 as its own service (CONTRACT: id `qcos`, port 8301, paths `/v2/...`,
 * `X-API-Key`): circuit jobs on simulators and emulated devices, optimize, simulate, usage,
 * quotas and webhooks. A light descriptor: the routes and the engine load in build().
 */
import type { ServiceDefinition } from '../../platform/service.ts';
import { sessionTableSql } from '../../platform/http/session.ts';
import { QCOS_PLANS } from './plans.ts';

export const qcosService: ServiceDefinition = {
  id: 'qcos',
  title: 'QCOS circuit job API (quantum interface 1)',
  defaultPort: 8301,
  // Browser sessions of console users on the jobs page (routes/page.ts).
  migrations: [
    { id: 'qcos/0001_sessions', sql: sessionTableSql('qcos_sessions') },
    // Request limits moved to platform/limits' windows: the per-key minute and day counters go.
    { id: 'qcos/0002_request_windows', sql: `DELETE FROM usage_counters WHERE service = 'qcos' AND (counter LIKE 'requests_minute:%' OR counter LIKE 'requests_day:%')` },
  ],
  keyPrefix: 'qcos',
  plans: QCOS_PLANS,
  async build(ctx, options) {
    const { buildQcos } = await import('./app.ts');
    return buildQcos(ctx, options);
  },
};
