/** GET /v2/jobs — the account's jobs, newest first, filtered by status, backend and creation time. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { listJobs, type JobStatus } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { QcosError, qcosError } from '../errors.ts';
import { JobOut, TAG_JOBS, security } from '../schemas.ts';
import { jobView } from '../views.ts';
import type { QcosDeps } from './context.ts';

const STATUSES = ['queued', 'validating', 'optimizing', 'running', 'completed', 'failed', 'cancelled'] as const;

const Query = Type.Object({
  status: Type.Optional(Type.String({ enum: [...STATUSES] })),
  backend: Type.Optional(Type.String({ maxLength: 100 })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Jobs created at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Jobs created at or before this time' })),
});

export function registerList(app: ServiceApp, deps: QcosDeps): void {
  app.get(
    '/v2/jobs',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_JOBS],
        summary: 'List jobs',
        security,
        querystring: Query,
        response: {
          200: Type.Object({ jobs: Type.Array(JobOut), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
          '4xx': QcosError,
        },
      },
    },
    async (req) => {
      const q = req.query;
      const from = q.from ? new Date(q.from) : undefined;
      const to = q.to ? new Date(q.to) : undefined;
      if (from && to && from > to) throw qcosError('INVALID_REQUEST', 'from must not be after to');
      const { jobs, total } = await listJobs(deps.ctx, {
        service: 'qcos',
        accountId: who(req).accountId,
        status: q.status as JobStatus | undefined,
        backend: q.backend,
        from,
        to,
        limit: q.limit,
        offset: q.offset,
      });
      return { jobs: jobs.map((j) => jobView(j)), total, limit: q.limit, offset: q.offset };
    },
  );
}
