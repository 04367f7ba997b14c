/** GET /api/v2/optimize/stats — the calling account's optimize figures and this month's evaluations against its plan. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { readCounter } from '../../../platform/identity/usage.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { responses } from '../errors.ts';
import { evaluationCounter } from '../limits.ts';
import { corePlan } from '../../../platform/quantum-jobs/plans.ts';
import { keySecurity, type CoreDeps } from './context.ts';

export function registerStats(app: ServiceApp, deps: CoreDeps): void {
  app.get(
    '/api/v2/optimize/stats',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Optimize'],
        summary: 'Optimize statistics of the calling account',
        security: keySecurity,
        response: responses(
          Type.Object({
            total_jobs: Type.Integer({ description: 'jobs the account submitted, alone or in batches, in any state' }),
            total_circuits: Type.Integer({ description: 'circuits the optimizer finished (completed jobs)' }),
            avg_reduction: Type.Union([Type.Number(), Type.Null()], {
              description: 'mean depth reduction in percent over the completed jobs; null before the first',
            }),
            evaluations_used: Type.Integer({ description: 'circuits submitted this UTC month' }),
            evaluations_limit: Type.Union([Type.Integer(), Type.Null()], { description: 'per month; null when unlimited (enterprise)' }),
          }),
        ),
      },
    },
    async (req) => {
      const identity = identityOf(req);
      const figures = await deps.jobs.stats(identity.accountId);
      return ok({
        ...figures,
        evaluations_used: await readCounter(deps.ctx.db, evaluationCounter(identity.accountId, deps.ctx.now())),
        evaluations_limit: corePlan(identity.plan).evaluationsPerMonth,
      });
    },
  );
}
