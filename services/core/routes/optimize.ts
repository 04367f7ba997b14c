/**
 * POST /api/v2/optimize — one circuit for the optimizer and a run on the backend, as a job;
 * GET /api/v2/optimize/{job_id} — its depths, reduction, results and evidence bundle.
 */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { coreError, responses } from '../errors.ts';
import { corePlan } from '../../../platform/quantum-jobs/plans.ts';
import { keySecurity, type CoreDeps } from './context.ts';
import { BackendId, JobIdParams, JobStatus, Level, Qasm, Results } from './schemas.ts';

const Body = Type.Object({
  qasm: Qasm,
  backend: BackendId,
  shots: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1024 })),
  options: Type.Optional(
    Type.Object({
      optimization_level: Type.Optional(Level),
      evidence: Type.Optional(Type.Boolean({ default: false, description: 'issue a signed evidence bundle when the job completes' })),
      pqc_signing: Type.Optional(
        Type.Boolean({
          description:
            'sign the evidence with ML-DSA-65 (post-quantum). Every bundle is signed so, so true also asks for a bundle; false together with evidence is refused',
        }),
      ),
    }),
  ),
});

export const OptimizeResult = Type.Object({
  job_id: Type.String(),
  status: JobStatus,
  backend: Type.String(),
  shots: Type.Integer(),
  optimization_level: Type.Integer(),
  original_depth: Type.Union([Type.Integer(), Type.Null()], { description: 'null until the optimizer has run' }),
  optimized_depth: Type.Union([Type.Integer(), Type.Null()]),
  reduction_percent: Type.Union([Type.Number(), Type.Null()], { description: 'depth reduction in percent' }),
  results: Results,
  evidence_bundle_id: Type.Union([Type.String(), Type.Null()], { description: 'set once the job completed, when evidence was asked for' }),
});

export function registerOptimize(app: ServiceApp, deps: CoreDeps): void {
  app.post(
    '/api/v2/optimize',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Optimize'],
        summary: 'Submit a circuit: optimize it for the backend and run it (one evaluation of the monthly quota)',
        security: keySecurity,
        body: Body,
        response: responses(
          Type.Object({
            job_id: Type.String(),
            status: JobStatus,
            estimated_time: Type.Number({ description: 'seconds until the result is expected: the wait in the backend queue plus the run' }),
          }),
          202,
        ),
      },
    },
    async (req, reply) => {
      const identity = identityOf(req);
      const options = req.body.options ?? {};
      if (options.evidence === true && options.pqc_signing === false) {
        throw coreError('INVALID_REQUEST', 'Evidence bundles are always signed with ML-DSA-65; options.pqc_signing cannot be false when options.evidence is true');
      }
      const [job] = await deps.jobs.submit({
        accountId: identity.accountId,
        keyId: identity.keyId,
        plan: corePlan(identity.plan),
        batch: false,
        circuits: [
          {
            qasm: req.body.qasm,
            backend: req.body.backend,
            shots: req.body.shots ?? 1024,
            level: (options.optimization_level ?? 2) as 0 | 1 | 2 | 3,
            evidence: options.evidence === true || options.pqc_signing === true,
          },
        ],
      }).then((s) => s.jobs);
      return reply.code(202).send(ok({ job_id: job!.job_id, status: job!.status, estimated_time: job!.estimated_time }));
    },
  );

  app.get(
    '/api/v2/optimize/:job_id',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Optimize'],
        summary: 'An optimize job: depths before and after, reduction, results and evidence bundle id',
        security: keySecurity,
        params: JobIdParams,
        response: responses(OptimizeResult),
      },
    },
    async (req) => {
      const job = await deps.jobs.get(identityOf(req).accountId, req.params.job_id);
      if (!job) throw coreError('JOB_NOT_FOUND', `Job '${req.params.job_id}' not found`);
      return ok({
        job_id: job.job_id,
        status: job.status,
        backend: job.backend,
        shots: job.shots,
        optimization_level: job.optimization_level,
        original_depth: job.original_depth,
        optimized_depth: job.optimized_depth,
        reduction_percent: job.reduction_percent,
        results: job.results,
        evidence_bundle_id: job.evidence_bundle_id,
      });
    },
  );
}
