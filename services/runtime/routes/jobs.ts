/**
 * GET /api/v1/runtime/jobs/{job_id} (the job; `result` once completed) and DELETE (cancel).
 * Another account's job answers 404, exactly like an unknown id.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { waitForJob } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { RuntimeError } from '../errors.ts';
import { SERVICE } from '../lifecycle.ts';
import { JobOut, jobView } from '../views.ts';
import { security, TAG_JOBS, type RuntimeDeps } from './context.ts';

export const JobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 64 }) });
const Wait = Type.Object({
  wait: Type.Optional(Type.Number({ minimum: 0, maximum: 60, description: 'Seconds to wait for a queued or running job to end before answering (default 0).' })),
});

export function registerJobs(app: ServiceApp, deps: RuntimeDeps): void {
  app.get(
    '/api/v1/runtime/jobs/:job_id',
    {
      preValidation: deps.auth.read,
      schema: { tags: [TAG_JOBS], summary: 'A runtime job, its billing and (once completed) its result', security, params: JobParams, querystring: Wait, response: { 200: JobOut, '4xx': RuntimeError } },
    },
    async (req) => {
      const accountId = who(req).accountId;
      const first = await deps.jobs.find(accountId, req.params.job_id);
      const wait = req.query.wait ?? 0;
      if (wait > 0 && first.phase === 'submitted') {
        await waitForJob(deps.ctx, { service: SERVICE, accountId }, first.id, wait * 1000);
      }
      const read = await deps.jobs.read(accountId, first.id);
      return jobView(deps.ctx.db, read.job, read.run, read.result);
    },
  );

  app.delete(
    '/api/v1/runtime/jobs/:job_id',
    {
      preValidation: deps.auth.execute,
      schema: {
        tags: [TAG_JOBS],
        summary: 'Cancel a runtime job',
        description:
          'Cancels a job that has not ended. Before approval nothing was held; after it, the run is stopped and the whole hold is released. ' +
          'A job that already ended answers 409 CONFLICT.',
        security,
        params: JobParams,
        response: { 200: Type.Intersect([JobOut, Type.Object({ previous_status: Type.String() })]), '4xx': RuntimeError },
      },
    },
    async (req) => {
      const accountId = who(req).accountId;
      const out = await deps.jobs.cancel(who(req), req.params.job_id);
      const read = await deps.jobs.read(accountId, out.job.id);
      return { ...(await jobView(deps.ctx.db, read.job, read.run, read.result)), previous_status: out.previous };
    },
  );
}
