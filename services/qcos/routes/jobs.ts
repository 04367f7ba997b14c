/**
 * GET /v2/jobs/{job_id}, GET /v2/jobs/{job_id}/results, DELETE /v2/jobs/{job_id}.
 * Another account's job reads as 404, exactly like an unknown id. `?wait=S` (up to 60 s)
 * answers as soon as the job has ended, so a client need not poll.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { cancelJob, jobQueuePosition, waitForJob, waitForJobWithResult, type TaskResult } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { QcosError, qcosError } from '../errors.ts';
import { JobOut, ResultsOut, TAG_JOBS, security } from '../schemas.ts';
import { jobView, resultsView, type QcosInput } from '../views.ts';
import type { QcosDeps } from './context.ts';

const Params = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 64 }) });
const Wait = Type.Object({
  wait: Type.Optional(Type.Number({ minimum: 0, maximum: 60, description: 'Seconds to wait for the job to end before answering (default 0).' })),
});

export function registerJobs(app: ServiceApp, deps: QcosDeps): void {
  const scopeOf = (req: Parameters<typeof who>[0]) => ({ service: 'qcos', accountId: who(req).accountId });

  app.get(
    '/v2/jobs/:job_id',
    {
      preValidation: deps.auth,
      schema: { tags: [TAG_JOBS], summary: 'A job and its status', security, params: Params, querystring: Wait, response: { 200: JobOut, '4xx': QcosError } },
    },
    async (req) => {
      const job = await waitForJob(deps.ctx, scopeOf(req), req.params.job_id, (req.query.wait ?? 0) * 1000);
      if (!job) throw qcosError('NOT_FOUND', `Job ${req.params.job_id} not found`);
      return jobView(job, await jobQueuePosition(deps.ctx, job));
    },
  );

  app.get(
    '/v2/jobs/:job_id/results',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_JOBS],
        summary: 'Counts, memory, metadata and quality metrics of a completed job',
        description: 'A job that has not completed answers 409 CONFLICT with its status (and its error when it failed).',
        security,
        params: Params,
        querystring: Wait,
        response: { 200: ResultsOut, '4xx': QcosError },
      },
    },
    async (req) => {
      const read = await waitForJobWithResult<TaskResult>(deps.ctx, scopeOf(req), req.params.job_id, (req.query.wait ?? 0) * 1000);
      if (!read) throw qcosError('NOT_FOUND', `Job ${req.params.job_id} not found`);
      const job = read.job;
      if (job.status !== 'completed') {
        throw qcosError('CONFLICT', `Job ${job.id} is ${job.status}; results exist once it has completed`, {
          status: job.status,
          ...(job.error ? { error: job.error } : {}),
        });
      }
      return resultsView(job as typeof job & { input: QcosInput }, read.result!);
    },
  );

  app.delete(
    '/v2/jobs/:job_id',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_JOBS],
        summary: 'Cancel a job',
        description:
          'Cancels a job that has not ended and stops its simulation. A running job is charged the minutes it ran and refunded the rest of its hold; ' +
          'a job that had not started is refunded its whole hold. A job that already ended answers 409 CONFLICT.',
        security,
        params: Params,
        response: {
          200: Type.Object({ job_id: Type.String(), status: Type.Literal('cancelled'), refunded_minutes: Type.Number(), previous_status: Type.String() }),
          '4xx': QcosError,
        },
      },
    },
    async (req) => {
      const out = await cancelJob(deps.ctx, scopeOf(req), req.params.job_id);
      if (out.outcome === 'not_found') throw qcosError('NOT_FOUND', `Job ${req.params.job_id} not found`);
      if (out.outcome === 'already_finished') {
        throw qcosError('CONFLICT', `Job ${out.job.id} already ${out.job.status}; only queued or running jobs can be cancelled`, { status: out.job.status });
      }
      return {
        job_id: out.job.id,
        status: 'cancelled' as const,
        refunded_minutes: Math.round(out.job.refundedMinutes * 1e9) / 1e9,
        previous_status: out.previous,
      };
    },
  );
}
