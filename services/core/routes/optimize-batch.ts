/**
 * POST /api/v2/optimize/batch — up to 100 circuits as one batch of jobs (each an evaluation;
 * all are checked first and the batch is taken whole or not at all);
 * GET /api/v2/optimize/batch/{batch_id} — the batch's status and its jobs' states.
 */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { coreError, responses } from '../errors.ts';
import { corePlan } from '../../../platform/quantum-jobs/plans.ts';
import { keySecurity, type CoreDeps } from './context.ts';
import { BackendId, JobStatus, Level, Qasm } from './schemas.ts';

export const MAX_BATCH = 100;

const BatchStatus = Type.String({
  description: 'processing while any job is queued or running; then completed (every job completed), failed (some failed) or cancelled (none completed, some cancelled)',
});

const Body = Type.Object({
  circuits: Type.Array(
    Type.Object({
      qasm: Qasm,
      backend: BackendId,
      shots: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1024 })),
    }),
    { minItems: 1, maxItems: MAX_BATCH },
  ),
  options: Type.Optional(
    Type.Object({
      optimization_level: Type.Optional(Level),
      evidence: Type.Optional(Type.Boolean({ default: false })),
      pqc_signing: Type.Optional(Type.Boolean()),
    }),
  ),
});

export function registerOptimizeBatch(app: ServiceApp, deps: CoreDeps): void {
  app.post(
    '/api/v2/optimize/batch',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Optimize'],
        summary: `Submit a batch of 1 to ${MAX_BATCH} circuits (one evaluation each)`,
        security: keySecurity,
        body: Body,
        response: responses(Type.Object({ batch_id: Type.String(), job_ids: Type.Array(Type.String()), status: BatchStatus }), 202),
      },
    },
    async (req, reply) => {
      const identity = identityOf(req);
      const options = req.body.options ?? {};
      if (options.evidence === true && options.pqc_signing === false) {
        throw coreError('INVALID_REQUEST', 'Evidence bundles are always signed with ML-DSA-65; options.pqc_signing cannot be false when options.evidence is true');
      }
      const level = (options.optimization_level ?? 2) as 0 | 1 | 2 | 3;
      const submitted = await deps.jobs.submit({
        accountId: identity.accountId,
        keyId: identity.keyId,
        plan: corePlan(identity.plan),
        batch: true,
        circuits: req.body.circuits.map((c) => ({
          qasm: c.qasm,
          backend: c.backend,
          shots: c.shots ?? 1024,
          level,
          evidence: options.evidence === true || options.pqc_signing === true,
        })),
      });
      return reply.code(202).send(ok({ batch_id: submitted.batchId!, job_ids: submitted.jobs.map((j) => j.job_id), status: 'processing' }));
    },
  );

  app.get(
    '/api/v2/optimize/batch/:batch_id',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Optimize'],
        summary: "A batch's status and its jobs",
        security: keySecurity,
        params: Type.Object({ batch_id: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: responses(
          Type.Object({
            batch_id: Type.String(),
            status: BatchStatus,
            created_at: Type.String(),
            total: Type.Integer(),
            counts: Type.Record(Type.String(), Type.Integer(), { description: 'job status -> number of jobs' }),
            jobs: Type.Array(Type.Object({ job_id: Type.String(), status: JobStatus, backend: Type.String() })),
          }),
        ),
      },
    },
    async (req) => {
      const batch = await deps.jobs.batch(identityOf(req).accountId, req.params.batch_id);
      if (!batch) throw coreError('JOB_NOT_FOUND', `Batch '${req.params.batch_id}' not found`);
      return ok(batch);
    },
  );
}
