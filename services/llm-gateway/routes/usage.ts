/** GET /api/usage — the workspace's balance and its spend per key and per day, for the console. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { getBalance, microsToUsd } from '../../../platform/billing/index.ts';
import { GatewayError } from '../errors.ts';
import { readUsage } from '../usage.ts';
import { TAG_CONSOLE, cookieSecurity, type GatewayDeps } from './context.ts';

const Usage = Type.Object({
  balance: Type.Object({
    available_usd: Type.Number({ description: 'what the workspace may still spend' }),
    held_usd: Type.Number({ description: 'set aside for calls running now, and credit leased by gateway processes for their next calls' }),
  }),
  days: Type.Array(Type.Object({ date: Type.String(), cost_usd: Type.Number(), requests: Type.Integer(), tokens: Type.Integer() }), { description: 'every UTC day of the period, oldest first' }),
  keys: Type.Array(Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]), cost_usd: Type.Number(), requests: Type.Integer(), tokens: Type.Integer() })),
  rows: Type.Array(
    Type.Object({
      date: Type.String(),
      key_id: Type.String(),
      model: Type.String(),
      requests: Type.Integer(),
      prompt_tokens: Type.Integer(),
      completion_tokens: Type.Integer(),
      cost_usd: Type.Number(),
    }),
    { description: 'one row per key, model and day' },
  ),
});

export function registerUsage(app: ServiceApp, deps: GatewayDeps): void {
  app.get(
    '/api/usage',
    {
      preHandler: deps.session,
      schema: {
        tags: [TAG_CONSOLE],
        summary: 'Balance and spend per key and per day',
        security: cookieSecurity,
        querystring: Type.Object({ days: Type.Integer({ minimum: 1, maximum: 366, default: 30 }) }),
        response: { 200: Usage, '4xx': GatewayError },
      },
    },
    async (req) => {
      const accountId = deps.sessions.of(req).accountId;
      const days = (req.query as { days: number }).days;
      const now = deps.ctx.now();
      // This process's finished calls are written and its idle leases of the workspace given
      // back first, so that "held" is what running calls (and other processes' leases) hold.
      await deps.gateway.leases.returnIdle(accountId);
      const [balance, rows] = await Promise.all([getBalance(deps.ctx.db, accountId), readUsage(deps.ctx.db, accountId, now, days)]);
      const perDay = new Map<string, { date: string; cost_usd: number; requests: number; tokens: number }>();
      for (let i = days - 1; i >= 0; i--) {
        const date = new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10);
        perDay.set(date, { date, cost_usd: 0, requests: 0, tokens: 0 });
      }
      const perKey = new Map<string, { id: string; name: string | null; cost_usd: number; requests: number; tokens: number }>();
      for (const r of rows) {
        const d = perDay.get(r.day);
        if (d) {
          d.cost_usd += r.costUsd;
          d.requests += r.requests;
          d.tokens += r.promptTokens + r.completionTokens;
        }
        const k = perKey.get(r.keyId) ?? { id: r.keyId, name: r.keyName, cost_usd: 0, requests: 0, tokens: 0 };
        k.cost_usd += r.costUsd;
        k.requests += r.requests;
        k.tokens += r.promptTokens + r.completionTokens;
        perKey.set(r.keyId, k);
      }
      const round = (x: number): number => Math.round(x * 1e6) / 1e6;
      return {
        balance: { available_usd: microsToUsd(balance.availableMicros), held_usd: microsToUsd(balance.heldMicros) },
        days: [...perDay.values()].map((d) => ({ ...d, cost_usd: round(d.cost_usd) })),
        keys: [...perKey.values()].map((k) => ({ ...k, cost_usd: round(k.cost_usd) })).sort((a, b) => b.cost_usd - a.cost_usd || (a.name ?? a.id).localeCompare(b.name ?? b.id) || a.id.localeCompare(b.id)),
        rows: rows.map((r) => ({
          date: r.day,
          key_id: r.keyId,
          model: r.model,
          requests: r.requests,
          prompt_tokens: r.promptTokens,
          completion_tokens: r.completionTokens,
          cost_usd: r.costUsd,
        })),
      };
    },
  );
}
