/** GET /api/v1/customers/me — the calling account, its plan and this month's usage. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { getAccount } from '../../../platform/identity/accounts.ts';
import { readCounter } from '../../../platform/identity/usage.ts';
import { DetailError } from '../errors.ts';
import { monthlyCounter } from '../keys/limits.ts';
import { licensingPlan } from '../plans.ts';
import { TAG_B, apiKeySecurity, type VariantBDeps } from './b-context.ts';

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

export function registerCustomer(app: ServiceApp, deps: VariantBDeps): void {
  app.get(
    '/api/v1/customers/me',
    {
      preValidation: deps.apiKeyAuth,
      schema: {
        tags: [TAG_B],
        summary: 'The calling account',
        security: apiKeySecurity,
        response: {
          200: Type.Object({
            id: Type.Integer(),
            name: Nullable(Type.String()),
            email: Type.String(),
            company_name: Nullable(Type.String()),
            plan: Type.String(),
            max_licenses_month: Type.Integer(),
            licenses_used_month: Type.Integer(),
            created_at: Type.String(),
            email_verified: Type.Boolean(),
          }),
          '4xx': DetailError,
        },
      },
    },
    async (req) => {
      const identity = identityOf(req);
      const account = await getAccount(deps.ctx.db, identity.accountId);
      // The key authenticated a moment ago, and accounts cascade to their keys: it exists.
      if (!account) throw new Error(`account ${identity.accountId} of an authenticated key is missing`);
      const plan = licensingPlan(identity.plan);
      return {
        id: Number(account.number),
        name: account.name,
        email: account.email,
        company_name: account.company_name,
        plan: plan.name,
        max_licenses_month: plan.licenses_per_month,
        licenses_used_month: await readCounter(deps.ctx.db, monthlyCounter(identity.accountId, deps.ctx.now())),
        created_at: new Date(account.created_at).toISOString(),
        email_verified: account.email_verified,
      };
    },
  );
}
