/** Builds the core service: the app with the core error envelope, its guards, and every route. */
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { requireKey } from '../../platform/http/auth.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { CoreError, coreError, formatCoreError } from './errors.ts';
import { CoreEvidence } from './evidence.ts';
import { CoreJobs } from './jobs.ts';
import { limiterFor } from '../../platform/limits/windows.ts';
import { rateLimitHook } from './limits.ts';
import { ResponseTimes } from './response-times.ts';
import { registerBackends } from './routes/backends.ts';
import { registerCalibration } from './routes/calibration.ts';
import type { CoreDeps } from './routes/context.ts';
import { registerEvidence } from './routes/evidence.ts';
import { registerHealth } from './routes/health.ts';
import { registerJobs } from './routes/jobs.ts';
import { registerOptimize } from './routes/optimize.ts';
import { registerOptimizeBatch } from './routes/optimize-batch.ts';
import { registerStats } from './routes/stats.ts';
import { registerStatus } from './routes/status.ts';
import { CORE_KEY_PREFIX } from './keys.ts';

export async function buildCoreApp(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp> {
  return mountService<CoreDeps>(options.prefix, {
    app: {
      bodyLimit: 1024 * 1024,
      formatError: formatCoreError,
      docs: {
        title: 'Lattice quantum core API (interface 3)',
        version: '2.0.0',
        description:
          'Circuit optimization jobs and batches run by the Lattice optimizer and simulators on the shared quantum job system, ' +
          'backends with calibration, and evidence bundles signed with ML-DSA-65 (verify, export as JSON, CBOR or PDF, ' +
          'public keys at /api/v2/evidence/keys). Every answer but /health is `{success, data}` or `{success: false, error: {code, message}}`.',
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: `A core API key (${CORE_KEY_PREFIX}_...)` },
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'The same key as a bearer token' },
        },
      },
    },
    schemas: [CoreError],
    async start(app) {
      const responseTimes = new ResponseTimes();
      app.addHook('onResponse', async (_req, reply) => {
        responseTimes.record(reply.elapsedTime);
      });
      const evidence = new CoreEvidence(ctx);
      const jobs = await CoreJobs.start(ctx, evidence);
      const deps: CoreDeps = {
        ctx,
        responseTimes,
        jobs,
        evidence,
        startedAt: ctx.now(),
        auth: [
          requireKey({
            db: ctx.db,
            service: 'core',
            header: 'either',
            unauthorized: () => coreError('UNAUTHORIZED', 'Missing or invalid API key (send X-API-Key or Authorization: Bearer)'),
          }),
          rateLimitHook(limiterFor(ctx.db), ctx.now),
        ],
      };
      return { deps, stop: () => jobs.stop() };
    },
    routes: [
      registerHealth,
      registerStatus,
      registerOptimize,
      registerOptimizeBatch,
      registerStats,
      registerBackends,
      registerCalibration,
      registerJobs,
      registerEvidence,
    ],
  });
}
