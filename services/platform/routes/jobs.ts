/**
 * GET /api/v1/platform/execution/jobs/{id} — the job with its current status; an unknown or
 * another account's id answers 200 `{status: "not_found"}` (spec), never 404. `?wait=N`
 * (seconds, at most 30) holds the answer until the job is closed, instead of polling.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { PlatformErrorBody } from '../errors.ts';
import { liveView, waitClosed } from '../live.ts';
import { selectJob } from '../store.ts';
import { notFoundView, PlatformJobOut } from '../views.ts';
import { security, TAG, type PlatformDeps } from './context.ts';

export const JobParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export function registerJobs(app: ServiceApp, deps: PlatformDeps): void {
  app.get(
    '/api/v1/platform/execution/jobs/:id',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG],
        summary: 'A job and its current status',
        description: 'Poll until a terminal state (SETTLED, CANCELLED, FAILED), or pass `wait`. Unknown or foreign ids answer 200 with `status: not_found`.',
        security,
        params: JobParams,
        querystring: Type.Object({ wait: Type.Optional(Type.Number({ minimum: 0, maximum: 30, description: 'Seconds to wait for the job to close' })) }),
        response: { 200: PlatformJobOut, '4xx': PlatformErrorBody, '5xx': PlatformErrorBody },
      },
    },
    async (req) => {
      const { accountId } = who(req);
      let job = await selectJob(deps.ctx.db, accountId, req.params.id);
      if (!job) return notFoundView(req.params.id);
      if (req.query.wait) job = await waitClosed(deps.ctx, job, req.query.wait * 1000);
      return liveView(deps.ctx, job);
    },
  );
}
