/**
 * POST /api/v1/customers/register — creates an account on a variant C plan and its first
 * API key, returned once (only its hash is kept). Account, plan and key are one transaction.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { createAccount, setPlan } from '../../../platform/identity/accounts.ts';
import { createKey } from '../../../platform/identity/keys.ts';
import { CDetailError } from '../errors.ts';
import { C_KEY_PREFIX, C_PLANS, cPlan, isCPlan } from '../plans.ts';
import { TAG, type CDeps } from './context.ts';

const Body = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  company_name: Type.String({ minLength: 1, maxLength: 200 }),
  plan: Type.String({ maxLength: 32, description: 'starter, professional or enterprise (any letter case)' }),
});

export function registerRegister(app: ServiceApp, deps: CDeps): void {
  app.post(
    '/api/v1/customers/register',
    {
      schema: {
        tags: [TAG],
        summary: 'Register a customer account; the API key is shown only in this response',
        body: Body,
        response: {
          201: Type.Object({
            id: Type.String(),
            email: Type.String(),
            company_name: Type.String(),
            api_key: Type.String(),
            plan: Type.String(),
            monthly_license_limit: Type.Integer({ description: 'enterprise (unlimited) reports 999999999' }),
            licenses_generated_this_month: Type.Integer(),
            created_at: Type.String(),
          }),
          '4xx': CDetailError,
        },
      },
    },
    async (req, reply) => {
      if (!isCPlan(req.body.plan)) {
        throw new ApiError(400, 'invalid_plan', `plan must be one of ${C_PLANS.map((p) => p.name).join(', ')}`);
      }
      const plan = cPlan(req.body.plan);
      const email = req.body.email.trim();
      const company = req.body.company_name.trim();
      if (!company) throw new ApiError(400, 'invalid_company', 'company_name must not be blank');
      const created = await deps.ctx.db
        .transaction(async (tx) => {
          const account = await createAccount(tx, { email, companyName: company });
          await setPlan(tx, account.id, 'licensing-c', plan.name);
          const key = await createKey(tx, { accountId: account.id, service: 'licensing-c', prefix: C_KEY_PREFIX });
          return { account, key };
        })
        .catch((err: unknown) => {
          // Accounts are shared by every service, so the address may be taken by any of them.
          if (err instanceof ApiError && err.code === 'email_taken') {
            throw new ApiError(400, 'email_taken', 'An account with this email is already registered');
          }
          throw err;
        });
      reply.code(201);
      return {
        id: created.account.id,
        email: created.account.email,
        company_name: company,
        api_key: created.key.key,
        plan: plan.name,
        monthly_license_limit: plan.monthlyLimit,
        licenses_generated_this_month: 0,
        created_at: new Date(created.account.created_at).toISOString(),
      };
    },
  );
}
