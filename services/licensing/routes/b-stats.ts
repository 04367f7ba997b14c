/** GET /api/v1/stats — this month's license usage against the plan's allowance. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { readCounter } from '../../../platform/identity/usage.ts';
import { DetailError } from '../errors.ts';
import { monthlyCounter } from '../keys/limits.ts';
import { licensingPlan } from '../plans.ts';
import { TAG_B, apiKeySecurity, type VariantBDeps } from './b-context.ts';

export function registerStats(app: ServiceApp, deps: VariantBDeps): void {
  app.get(
    '/api/v1/stats',
    {
      preValidation: deps.apiKeyAuth,
      schema: {
        tags: [TAG_B],
        summary: 'Usage this month',
        security: apiKeySecurity,
        response: {
          200: Type.Object({
            licenses_generated_month: Type.Integer(),
            licenses_remaining_month: Type.Integer(),
            plan: Type.String(),
            max_licenses_month: Type.Integer(),
          }),
          '4xx': DetailError,
        },
      },
    },
    async (req) => {
      const identity = identityOf(req);
      const plan = licensingPlan(identity.plan);
      const used = await readCounter(deps.ctx.db, monthlyCounter(identity.accountId, deps.ctx.now()));
      return {
        licenses_generated_month: used,
        licenses_remaining_month: Math.max(0, plan.licenses_per_month - used),
        plan: plan.name,
        max_licenses_month: plan.licenses_per_month,
      };
    },
  );
}
