/**
 * GET /api/v1/platform/usage — the account's use of the platform in a calendar month (UTC):
 * jobs by status and type, money charged, and by billing mode what it means: the prepaid
 * balance and what is held on it now, or for PAYGO the month's invoice (usage is invoiced
 * monthly instead of held; the invoice is `open` until the month ends). The spec names a
 * "usage and billing" group without its routes; this is the one a client needs for its money.
 */
import { Type } from 'typebox';
import { getBalance, microsToUsd } from '../../../platform/billing/index.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { platformError, PlatformErrorBody } from '../errors.ts';
import { platformPlan } from '../plans.ts';
import { security, TAG, type PlatformDeps } from './context.ts';

const UsageOut = Type.Object({
  plan: Type.String(),
  billing_mode: Type.String({ enum: ['FREE', 'PREPAID', 'PAYGO'] }),
  period: Type.Object({ start: Type.String(), end: Type.String() }),
  jobs: Type.Object({ total: Type.Integer(), by_status: Type.Record(Type.String(), Type.Integer()), by_type: Type.Record(Type.String(), Type.Integer()) }),
  charged_usd: Type.Number({ description: 'Charges of the jobs created in the period' }),
  by_type_usd: Type.Record(Type.String(), Type.Number()),
  balance: Type.Union([Type.Object({ available_usd: Type.Number(), held_usd: Type.Number() }), Type.Null()], { description: 'PREPAID: the balance now' }),
  invoice: Type.Union([Type.Object({ status: Type.String({ enum: ['open', 'closed'] }), amount_usd: Type.Number(), due_after: Type.String() }), Type.Null()], {
    description: 'PAYGO: the invoice of the period',
  }),
});

export function registerUsage(app: ServiceApp, deps: PlatformDeps): void {
  const { ctx } = deps;
  app.get(
    '/api/v1/platform/usage',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Usage and billing'],
        summary: "The account's usage and billing of a month",
        security,
        querystring: Type.Object({ period: Type.Optional(Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM (UTC); this month by default' })) }),
        response: { 200: UsageOut, '4xx': PlatformErrorBody },
      },
    },
    async (req) => {
      const id = who(req);
      const plan = platformPlan(id.plan);
      const now = ctx.now();
      const [y, m] = req.query.period ? req.query.period.split('-').map(Number) : [now.getUTCFullYear(), now.getUTCMonth() + 1];
      const start = new Date(Date.UTC(y!, m! - 1, 1));
      const end = new Date(Date.UTC(y!, m!, 1));
      if (start.getTime() > now.getTime()) throw platformError('invalid_request', 'period is in the future', { period: req.query.period });
      const rows = await ctx.db.query<{ status: string; type: string; n: number; charged: number | string }>(
        `SELECT status, type, count(*)::int AS n, COALESCE(sum(charged_micros), 0) AS charged FROM platform_jobs
          WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY status, type`,
        [id.accountId, start, end],
      );
      const byStatus: Record<string, number> = {};
      const byType: Record<string, number> = {};
      const byTypeMicros: Record<string, number> = {};
      let total = 0;
      let charged = 0;
      for (const r of rows) {
        byStatus[r.status] = (byStatus[r.status] ?? 0) + r.n;
        byType[r.type] = (byType[r.type] ?? 0) + r.n;
        byTypeMicros[r.type] = (byTypeMicros[r.type] ?? 0) + Number(r.charged);
        total += r.n;
        charged += Number(r.charged);
      }
      const balance = plan.billingMode === 'PREPAID' ? await getBalance(ctx.db, id.accountId) : null;
      return {
        plan: plan.name,
        billing_mode: plan.billingMode,
        period: { start: start.toISOString(), end: end.toISOString() },
        jobs: { total, by_status: byStatus, by_type: byType },
        charged_usd: microsToUsd(charged),
        by_type_usd: Object.fromEntries(Object.entries(byTypeMicros).map(([k, v]) => [k, microsToUsd(v)])),
        balance: balance ? { available_usd: microsToUsd(balance.availableMicros), held_usd: microsToUsd(balance.heldMicros) } : null,
        invoice:
          plan.billingMode === 'PAYGO'
            ? { status: now.getTime() >= end.getTime() ? ('closed' as const) : ('open' as const), amount_usd: microsToUsd(charged), due_after: end.toISOString() }
            : null,
      };
    },
  );
}
