/**
 * Builds the platform execution app (interface 5): the routes, the quantum workers and the
 * circuit jobs' close, the compute runner, the per-IP rate limit, and repair at start and
 * every 30 s (repair.ts) so that no hold outlives its job.
 */
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { startLeaderLoop } from '../../platform/cluster/loop.ts';
import { startQuantumWorkers, type QuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { platformAuth, rateLimit, ratePerMinute } from './auth.ts';
import { ComputeRunner } from './compute.ts';
import { formatPlatformError, PlatformErrorBody } from './errors.ts';
import { onCircuitFinished, SERVICE } from './quantum.ts';
import { repairPlatform } from './repair.ts';
import { registerCancel } from './routes/cancel.ts';
import type { PlatformDeps } from './routes/context.ts';
import { registerEvidence } from './routes/evidence.ts';
import { registerHealth } from './routes/health.ts';
import { registerJobs } from './routes/jobs.ts';
import { registerSubmit } from './routes/submit.ts';
import { registerUsage } from './routes/usage.ts';
import { PlatformJobOut } from './views.ts';

function computeSlots(): number {
  const raw = process.env.LATTICE_PLATFORM_COMPUTE_SLOTS;
  if (raw === undefined || raw === '') return 2;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`LATTICE_PLATFORM_COMPUTE_SLOTS must be a whole number above 0; got '${raw}'`);
  return n;
}

export async function buildPlatform(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp> {
  const perMinute = ratePerMinute();
  const slots = computeSlots();
  return mountService<PlatformDeps & { workers: QuantumWorkers }>(options.prefix, {
    app: {
      bodyLimit: 1024 * 1024,
      formatError: formatPlatformError,
      docs: {
        title: 'Lattice platform execution (interface 5)',
        version: '1.0.0',
        description:
          'Quantum circuits, CPU and GPU jobs with free, prepaid (held, then settled) or pay-as-you-go billing, idempotent submission and ' +
          'signed evidence. Every refusal is `{detail, code, message, request_id}` with the machine reason in `detail`; nothing is charged on one.',
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
    },
    schemas: [PlatformErrorBody, PlatformJobOut],
    async start(app) {
      const workers = await startQuantumWorkers(ctx);
      workers.onJobFinished(SERVICE, (_jobCtx, job) => onCircuitFinished(ctx, job));
      const compute = new ComputeRunner(ctx, slots);
      await repairPlatform(ctx, true);
      compute.start();
      // After the repair at start (this process's own leftovers), one process of the cluster repairs every 30 s.
      const maintenance = await startLeaderLoop(ctx.db, 'platform-repair', 30_000, () => repairPlatform(ctx), app.log);
      const background = new Set<Promise<unknown>>();
      const stop = async (): Promise<void> => {
        await maintenance.stop();
        await Promise.allSettled([...background]);
        await compute.stop();
        await workers.release();
      };
      const limit = rateLimit(ctx, perMinute);
      return { deps: { ctx, auth: [limit, platformAuth(ctx)], limit, compute, background, workers }, stop };
    },
    routes: [(app, deps) => registerHealth(app, deps, deps.workers), registerSubmit, registerJobs, registerCancel, registerEvidence, registerUsage],
  });
}
