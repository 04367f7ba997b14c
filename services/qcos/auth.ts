/**
 * `X-API-Key` authentication and the plan's request limits per key: per minute and per day
 * (429 RATE_LIMITED with Retry-After), counted in the database so that they hold across
 * processes and restarts. The month's count is kept beside them for `api_calls` of the usage.
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { presentedKey } from '../../platform/http/auth.ts';
import { keyAuthenticatorFor, type KeyAuthenticator } from '../../platform/identity/key-cache.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { qcosError } from './errors.ts';
import { qcosPlan } from './plans.ts';

declare module 'fastify' {
  interface FastifyRequest {
    qcos?: Identity;
  }
}

export function periods(now: Date): { minute: string; day: string; month: string } {
  const iso = now.toISOString();
  return { minute: iso.slice(0, 16), day: iso.slice(0, 10), month: iso.slice(0, 7) };
}

/** Counts one request of the key in this minute, day and month; returns the new counts. */
async function count(ctx: ServiceContext, who: Identity, now: Date): Promise<{ minute: number; day: number }> {
  const p = periods(now);
  const rows = await ctx.db.query<{ counter: string; value: number | string }>(
    `INSERT INTO usage_counters (account_id, service, counter, period, value)
     VALUES ($1, 'qcos', $2, $3, 1), ($1, 'qcos', $4, $5, 1), ($1, 'qcos', 'requests', $6, 1)
     ON CONFLICT (account_id, service, counter, period) DO UPDATE SET value = usage_counters.value + 1
     RETURNING counter, value`,
    [who.accountId, `requests_minute:${who.keyId}`, p.minute, `requests_day:${who.keyId}`, p.day, p.month],
  );
  const v = (prefix: string) => Number(rows.find((r) => r.counter.startsWith(prefix))?.value ?? 0);
  return { minute: v('requests_minute:'), day: v('requests_day:') };
}

/** Minute counters older than an hour are of no more use. */
export async function pruneMinuteCounters(ctx: ServiceContext): Promise<void> {
  const hourAgo = periods(new Date(ctx.now().getTime() - 3_600_000)).minute;
  await ctx.db.query(`DELETE FROM usage_counters WHERE service = 'qcos' AND counter LIKE 'requests_minute:%' AND period < $1`, [hourAgo]);
}

export function qcosAuth(ctx: ServiceContext): preHandlerAsyncHookHandler {
  let keys: KeyAuthenticator | null = null;
  return async (req: FastifyRequest) => {
    const raw = presentedKey(req, 'x-api-key');
    if (!raw) throw qcosError('UNAUTHORIZED', 'Missing X-API-Key header');
    keys ??= await keyAuthenticatorFor(ctx.db);
    const who = await keys.authenticate(raw, 'qcos', 'api_key', ctx.now());
    if (!who) throw qcosError('UNAUTHORIZED', 'Invalid or revoked API key');
    const plan = qcosPlan(who.plan);
    const now = ctx.now();
    const n = await count(ctx, who, now);
    if (plan.requestsPerMinute !== null && n.minute > plan.requestsPerMinute) {
      const retry = 60 - now.getUTCSeconds();
      throw qcosError('RATE_LIMITED', `Rate limit of ${plan.requestsPerMinute} requests per minute exceeded for the ${plan.name} plan`,
        { limit: plan.requestsPerMinute, window: 'minute', retry_after_seconds: retry }, { 'retry-after': String(retry) });
    }
    if (plan.requestsPerDay !== null && n.day > plan.requestsPerDay) {
      const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
      const retry = Math.ceil((next - now.getTime()) / 1000);
      throw qcosError('RATE_LIMITED', `Rate limit of ${plan.requestsPerDay} requests per day exceeded for the ${plan.name} plan`,
        { limit: plan.requestsPerDay, window: 'day', retry_after_seconds: retry }, { 'retry-after': String(retry) });
    }
    req.qcos = who;
  };
}

export function who(req: FastifyRequest): Identity {
  if (!req.qcos) throw new Error('route reached without authentication');
  return req.qcos;
}
