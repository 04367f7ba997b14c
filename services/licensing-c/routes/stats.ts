/** GET /api/v1/stats — the calling account's licenses, this month's usage and measured quantum figures. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { readCounter } from '../../../platform/identity/usage.ts';
import { CDetailError } from '../errors.ts';
import { monthlyCounter } from '../limits.ts';
import { cPlan } from '../plans.ts';
import { accountFigures } from '../store.ts';
import { TAG, bearerSecurity, type CDeps } from './context.ts';

export function registerStats(app: ServiceApp, deps: CDeps): void {
  app.get(
    '/api/v1/stats',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG],
        summary: 'License statistics of the calling account',
        security: bearerSecurity,
        response: {
          200: Type.Object({
            total_licenses: Type.Integer(),
            active_licenses: Type.Integer(),
            expired_licenses: Type.Integer(),
            this_month: Type.Integer(),
            monthly_limit: Type.Integer(),
            quantum_fidelity_avg: Type.Union([Type.Number(), Type.Null()], { description: 'null before the first license' }),
            generation_time_avg_ms: Type.Union([Type.Number(), Type.Null()], { description: 'null before the first license' }),
          }),
          '4xx': CDetailError,
        },
      },
    },
    async (req) => {
      const identity = identityOf(req);
      const now = deps.ctx.now();
      const figures = await accountFigures(deps.ctx.db, identity.accountId, now);
      return {
        total_licenses: figures.total,
        active_licenses: figures.active,
        expired_licenses: figures.expired,
        this_month: await readCounter(deps.ctx.db, monthlyCounter(identity.accountId, now)),
        monthly_limit: cPlan(identity.plan).monthlyLimit,
        quantum_fidelity_avg: figures.fidelityAvg,
        generation_time_avg_ms: figures.generationTimeAvgMs,
      };
    },
  );
}
