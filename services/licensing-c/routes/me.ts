/** GET /api/v1/customers/me — the calling account, its plan and this month's usage (never the key). */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { getAccount } from '../../../platform/identity/accounts.ts';
import { readCounter } from '../../../platform/identity/usage.ts';
import { CDetailError } from '../errors.ts';
import { monthlyCounter } from '../limits.ts';
import { cPlan } from '../plans.ts';
import { TAG, bearerSecurity, type CDeps } from './context.ts';

export function registerMe(app: ServiceApp, deps: CDeps): void {
  app.get(
    '/api/v1/customers/me',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG],
        summary: 'The calling customer',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            id: Type.String(),
            email: Type.String(),
            company_name: Type.Union([Type.String(), Type.Null()]),
            plan: Type.String(),
            monthly_limit: Type.Integer(),
            used_this_month: Type.Integer(),
            created_at: Type.String(),
          }),
          '4xx': CDetailError,
        },
      },
    },
    async (req) => {
      const identity = identityOf(req);
      const account = await getAccount(deps.ctx.db, identity.accountId);
      // The key authenticated a moment ago and keys cascade with their account: it exists.
      if (!account) throw new Error(`account ${identity.accountId} of an authenticated key is missing`);
      const plan = cPlan(identity.plan);
      return {
        id: account.id,
        email: account.email,
        company_name: account.company_name,
        plan: plan.name,
        monthly_limit: plan.monthlyLimit,
        used_this_month: await readCounter(deps.ctx.db, monthlyCounter(identity.accountId, deps.ctx.now())),
        created_at: new Date(account.created_at).toISOString(),
      };
    },
  );
}
