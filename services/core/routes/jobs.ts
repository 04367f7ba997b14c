/**
 * The account's jobs: GET /api/v2/jobs (filter, page), GET /api/v2/jobs/{job_id} (details),
 * DELETE /api/v2/jobs/{job_id} (cancel a queued or running job), POST
 * /api/v2/jobs/{job_id}/retry (run a failed job again, under the same id).
 */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { coreError, responses } from '../errors.ts';
import { keySecurity, type CoreDeps } from './context.ts';
import { OptimizeResult } from './optimize.ts';
import { JobError, JobIdParams, JobStatus } from './schemas.ts';

const STATUSES = ['queued', 'validating', 'optimizing', 'running', 'completed', 'failed', 'cancelled'] as const;

const JobDetail = Type.Object({
  ...OptimizeResult.properties,
  batch_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  completed_at: Type.Union([Type.String(), Type.Null()], { description: 'when the job reached completed, failed or cancelled' }),
  execution_time_ms: Type.Union([Type.Number(), Type.Null()], { description: 'time of the simulator run alone' }),
  attempts: Type.Integer({ description: 'times a worker started the job (retries included)' }),
  circuit_hash: Type.String({ description: 'sha3-256 of the submitted QASM text' }),
  original_gates: Type.Union([Type.Integer(), Type.Null()]),
  optimized_gates: Type.Union([Type.Integer(), Type.Null()]),
  optimized_circuit: Type.Union([Type.String(), Type.Null()], { description: 'the optimizer output as OpenQASM' }),
  error: JobError,
});

export function registerJobs(app: ServiceApp, deps: CoreDeps): void {
  app.get(
    '/api/v2/jobs',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Jobs'],
        summary: "The account's jobs, newest first",
        security: keySecurity,
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([...STATUSES, 'pending'].map((s) => Type.Literal(s)), { description: '`pending` (the word of the spec\'s transition table) is `queued`' }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
          offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
        }),
        response: responses(
          Type.Object({
            jobs: Type.Array(
              Type.Object({
                job_id: Type.String(),
                status: JobStatus,
                created_at: Type.String(),
                completed_at: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
            pagination: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
          }),
        ),
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 20;
      const offset = req.query.offset ?? 0;
      const status = req.query.status === 'pending' ? 'queued' : (req.query.status ?? null);
      const page = await deps.jobs.list(identityOf(req).accountId, { status, limit, offset });
      return ok({ jobs: page.jobs, pagination: { total: page.total, limit, offset } });
    },
  );

  app.get(
    '/api/v2/jobs/:job_id',
    {
      preValidation: deps.auth,
      schema: { tags: ['Jobs'], summary: 'Details of one job', security: keySecurity, params: JobIdParams, response: responses(JobDetail) },
    },
    async (req) => {
      const job = await deps.jobs.get(identityOf(req).accountId, req.params.job_id);
      if (!job) throw coreError('JOB_NOT_FOUND', `Job '${req.params.job_id}' not found`);
      return ok(job);
    },
  );

  app.delete(
    '/api/v2/jobs/:job_id',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Jobs'],
        summary: 'Cancel a queued or running job (its simulation stops); 409 once it has finished or was cancelled',
        security: keySecurity,
        params: JobIdParams,
        response: responses(Type.Object({ job_id: Type.String(), status: JobStatus })),
      },
    },
    async (req) => {
      const outcome = await deps.jobs.cancel(identityOf(req).accountId, req.params.job_id);
      if (!outcome) throw coreError('JOB_NOT_FOUND', `Job '${req.params.job_id}' not found`);
      if (!outcome.cancelled) {
        const why = outcome.status === 'cancelled' ? 'was already cancelled' : `is ${outcome.status} and can no longer be cancelled`;
        throw coreError('INVALID_JOB_STATE', `Job '${req.params.job_id}' ${why}`);
      }
      return ok({ job_id: req.params.job_id, status: outcome.status });
    },
  );

  app.post(
    '/api/v2/jobs/:job_id/retry',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Jobs'],
        summary: 'Run a failed job again (same job id, queued again; no further evaluation is counted); 409 unless failed',
        security: keySecurity,
        params: JobIdParams,
        response: responses(Type.Object({ job_id: Type.String(), status: JobStatus, attempts: Type.Integer(), retried_at: Type.String() }), 202),
      },
    },
    async (req, reply) => {
      const outcome = await deps.jobs.retry(identityOf(req).accountId, req.params.job_id);
      if (!outcome) throw coreError('JOB_NOT_FOUND', `Job '${req.params.job_id}' not found`);
      if (!outcome.retried) {
        throw coreError('INVALID_JOB_STATE', `Job '${req.params.job_id}' is ${outcome.status}; only a failed job can be retried`);
      }
      return reply.code(202).send(ok({ job_id: req.params.job_id, status: outcome.status, attempts: outcome.attempts, retried_at: deps.ctx.now().toISOString() }));
    },
  );
}
