/**
 * POST /api/v1/runtime/jobs and POST /api/v1/runtime/jobs/async: 202 with the estimate, its
 * basis, and (for a priced device job) the approval token, shown once. The first answers once
 * the circuit is checked, transpiled and priced (a bad circuit is a 400 and nothing is kept);
 * the async variant answers after the backend and shots checks and prices the job afterwards.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { RuntimeError } from '../errors.ts';
import { MAX_SHOTS } from '../plans.ts';
import { SubmitOut, submitView } from '../views.ts';
import { security, TAG_JOBS, type RuntimeDeps } from './context.ts';

export const SubmitIn = Type.Object(
  {
    backend_id: Type.String({ minLength: 1, maxLength: 100, description: 'A catalog backend id: a simulator (free, runs at once) or an emulated device (priced, waits for approval)' }),
    qasm: Type.String({ minLength: 1, maxLength: 512 * 1024, description: 'OpenQASM 2 or 3 text' }),
    shots: Type.Integer({ minimum: 1, maximum: MAX_SHOTS }),
  },
  { additionalProperties: false },
);

export function registerSubmit(app: ServiceApp, deps: RuntimeDeps): void {
  const schema = (summary: string, description: string) => ({
    tags: [TAG_JOBS],
    summary,
    description,
    security,
    body: SubmitIn,
    response: { 202: SubmitOut, '4xx': RuntimeError },
  });

  app.post(
    '/api/v1/runtime/jobs',
    {
      preValidation: deps.auth.execute,
      schema: schema(
        'Submit a runtime job',
        'Checks and transpiles the circuit for the backend and computes the cost. A simulator job is queued at once; a device job waits for POST .../approve with the returned token.',
      ),
    },
    async (req, reply) => {
      const { job, token } = await deps.jobs.submit(who(req), req.body);
      reply.code(202);
      return submitView(job, await deps.jobs.statusOf(job), token);
    },
  );

  app.post(
    '/api/v1/runtime/jobs/async',
    {
      preValidation: deps.auth.execute,
      schema: schema(
        'Submit a runtime job without waiting for its validation (fire-and-forget)',
        'Answers at once with status `validating`; the estimate fields are null until the job has been priced (read it with GET). A circuit refused then leaves the job `failed` with its reason.',
      ),
    },
    async (req, reply) => {
      const { job, token } = await deps.jobs.submitAsync(who(req), req.body);
      reply.code(202);
      return submitView(job, job.phase, token);
    },
  );
}
