/** GET /v1/admin/usage (admin key) — requests and tokens per tenant and day, with each tier's limits. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { requireAdmin } from '../caller.ts';
import { commonErrors } from '../errors.ts';
import { qPlan } from '../plans.ts';
import { begin, bearerSecurity, TAG, type QDeps } from './context.ts';

const limitOf = (n: number) => (Number.isFinite(n) ? n : null);

export function registerAdminUsage(app: ServiceApp, deps: QDeps): void {
  app.get(
    '/v1/admin/usage',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.admin],
        summary: 'Per-tenant requests and tokens (admin key); days counted in UTC',
        security: bearerSecurity,
        querystring: Type.Object({ days: Type.Integer({ minimum: 1, maximum: 366, default: 30, description: 'Days back, today included' }) }),
        response: {
          200: Type.Object({
            from: Type.String({ format: 'date' }),
            to: Type.String({ format: 'date' }),
            data: Type.Array(
              Type.Object({
                tenant_id: Type.String(),
                slug: Type.String(),
                tier: Type.String(),
                requests: Type.Integer(),
                tokens: Type.Integer(),
                today: Type.Object({ requests: Type.Integer(), tokens: Type.Integer() }),
                limits: Type.Object({ requests_per_minute: Type.Integer(), tokens_per_day: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' }) }),
              }),
            ),
            total: Type.Object({ requests: Type.Integer(), tokens: Type.Integer() }),
          }),
          ...commonErrors,
        },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      requireAdmin(caller);
      const now = deps.ctx.now();
      await deps.limits.flushUsage();
      const to = now.toISOString().slice(0, 10);
      const from = new Date(now.getTime() - (req.query.days - 1) * 86_400_000).toISOString().slice(0, 10);
      const rows = await deps.ctx.db.query<{ id: string; slug: string; tier: string; requests: number; tokens: number; today_requests: number; today_tokens: number }>(
        `SELECT t.id, t.slug, t.tier,
                COALESCE(sum(u.requests), 0)::bigint AS requests, COALESCE(sum(u.tokens), 0)::bigint AS tokens,
                COALESCE(sum(u.requests) FILTER (WHERE u.day = $3::date), 0)::bigint AS today_requests,
                COALESCE(sum(u.tokens) FILTER (WHERE u.day = $3::date), 0)::bigint AS today_tokens
           FROM llm_tenants t LEFT JOIN llm_usage_daily u ON u.subject = t.id AND u.day BETWEEN $2::date AND $3::date
          WHERE t.account_id = $1 GROUP BY t.id, t.slug, t.tier, t.created_at ORDER BY t.created_at, t.id`,
        [caller.accountId, from, to],
      );
      const data = rows.map((r) => {
        const plan = qPlan(r.tier);
        return {
          tenant_id: r.id,
          slug: r.slug,
          tier: r.tier,
          requests: Number(r.requests),
          tokens: Number(r.tokens),
          today: { requests: Number(r.today_requests), tokens: Number(r.today_tokens) },
          limits: { requests_per_minute: plan.requestsPerMinute, tokens_per_day: limitOf(plan.tokensPerDay) },
        };
      });
      return { from, to, data, total: { requests: data.reduce((s, d) => s + d.requests, 0), tokens: data.reduce((s, d) => s + d.tokens, 0) } };
    },
  );
}
