/** Builds the runtime app: routes, the job workers, the end-of-run handler and the repair at start. */
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { startQuantumWorkers } from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { runtimeAuth } from './auth.ts';
import { formatRuntimeError, RuntimeError } from './errors.ts';
import { RuntimeLifecycle, SERVICE } from './lifecycle.ts';
import { RUNTIME_KEY_PREFIX } from './plans.ts';
import { resumeRuntime } from './recovery.ts';
import { registerApprove } from './routes/approve.ts';
import { registerArtifacts } from './routes/artifacts.ts';
import type { RuntimeDeps } from './routes/context.ts';
import { registerEvidenceKeys } from './routes/evidence-keys.ts';
import { registerHealth } from './routes/health.ts';
import { registerJobs } from './routes/jobs.ts';
import { registerSubmit } from './routes/submit.ts';
import { JobOut, SubmitOut } from './views.ts';

export async function buildRuntime(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp> {
  return mountService<RuntimeDeps>(options.prefix, {
    app: {
      bodyLimit: 1024 * 1024,
      formatError: formatRuntimeError,
      docs: {
        title: 'Lattice quantum runtime (interface 6)',
        version: '1.0.0',
        description:
          'Runtime jobs on simulators (free, run at once) and emulated devices (priced from the transpiled circuit, the shots and the device price; ' +
          'they wait for approval with a token, then hold the estimate on the prepaid balance and settle the actual cost on completion). ' +
          'Completed jobs have artifacts with a sealed execution_evidence.json (ML-DSA-65, keys at /api/v1/runtime/evidence/keys). ' +
          'Roles: viewer (runtime:read), developer and admin (runtime:execute). Errors are `{error: {code, message, details}, request_id}`.',
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: `A runtime API key (${RUNTIME_KEY_PREFIX}_...)` } },
      },
    },
    schemas: [RuntimeError, SubmitOut, JobOut],
    async start() {
      const workers = await startQuantumWorkers(ctx);
      const jobs = new RuntimeLifecycle(ctx);
      // The end of a run on this store settles its hold and seals its evidence; release() unwires it.
      workers.onJobFinished(SERVICE, (_jobCtx, job) => jobs.finished(job));
      await resumeRuntime(ctx, jobs);
      return { deps: { ctx, auth: runtimeAuth(ctx), jobs }, stop: () => workers.release() };
    },
    routes: [registerHealth, registerSubmit, registerJobs, registerApprove, registerArtifacts, registerEvidenceKeys],
  });
}
