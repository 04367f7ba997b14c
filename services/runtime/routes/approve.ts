/**
 * POST /api/v1/runtime/jobs/{job_id}/approve?approval_token=...: approves a priced job (an
 * emulated device, the real-QPU class). A wrong token is 403 INVALID_APPROVAL_TOKEN and the
 * job keeps waiting; a balance that does not cover the estimate is 402 INSUFFICIENT_CREDITS
 * and the job keeps waiting too. On success the estimate is held and the job is queued.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { approveJob } from '../approval.ts';
import { who } from '../auth.ts';
import { RuntimeError } from '../errors.ts';
import { JobOut, jobView } from '../views.ts';
import { security, TAG_JOBS, type RuntimeDeps } from './context.ts';
import { JobParams } from './jobs.ts';

const Query = Type.Object({ approval_token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the submit answer' }) });

export function registerApprove(app: ServiceApp, deps: RuntimeDeps): void {
  app.post(
    '/api/v1/runtime/jobs/:job_id/approve',
    {
      preValidation: deps.auth.execute,
      schema: {
        tags: [TAG_JOBS],
        summary: 'Approve a priced job with its token',
        description: 'Holds the estimated cost on the prepaid balance and queues the job. 403 for a wrong token, 402 when the balance does not cover the hold, 409 when the job is not waiting for approval.',
        security,
        params: JobParams,
        querystring: Query,
        response: { 200: JobOut, '4xx': RuntimeError },
      },
    },
    async (req) => {
      const caller = who(req);
      const job = await approveJob(deps.ctx, deps.jobs, caller, req.params.job_id, req.query.approval_token);
      const read = await deps.jobs.read(caller.accountId, job.id);
      return jobView(deps.ctx.db, read.job, read.run, read.result);
    },
  );
}
