/**
 * The two limits of a core plan: requests per minute per key (fixed UTC minutes counted across
 * the cluster, platform/limits), and evaluations per UTC month per account (a counter in the
 * store, taken for a whole submission in one statement so that concurrent submissions never
 * pass the plan's number together).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { identityOf } from '../../platform/http/auth.ts';
import { monthPeriod } from '../../platform/identity/usage.ts';
import { MINUTE, type WindowLimiter } from '../../platform/limits/windows.ts';
import type { Sql } from '../../platform/storage/database.ts';
import { coreError } from './errors.ts';
import { corePlan, type CorePlan } from '../../platform/quantum-jobs/plans.ts';

/** A preValidation hook, after authentication: the plan's requests per minute, with X-RateLimit-* headers. */
export function rateLimitHook(limiter: WindowLimiter, now: () => Date) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const identity = identityOf(req);
    const plan = corePlan(identity.plan);
    const taken = await limiter.take(`core:key:${identity.keyId}`, [{ name: 'minute', limit: plan.requestsPerMinute, ms: MINUTE }], now());
    reply.header('x-ratelimit-limit', String(plan.requestsPerMinute));
    if (!taken.ok) {
      const wait = taken.retryAfterSeconds;
      reply.header('x-ratelimit-remaining', '0');
      reply.header('x-ratelimit-reset', String(Math.ceil(taken.resetAt / 1000)));
      throw coreError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit exceeded: the ${plan.name} plan allows ${plan.requestsPerMinute} requests per minute; retry in ${wait} s`,
        { 'retry-after': String(wait) },
      );
    }
    reply.header('x-ratelimit-remaining', String(taken.remaining ?? plan.requestsPerMinute));
    if (taken.resetAt !== null) reply.header('x-ratelimit-reset', String(Math.ceil(taken.resetAt / 1000)));
  };
}

export function evaluationCounter(accountId: string, now: Date) {
  return { accountId, service: 'core', counter: 'evaluations', period: monthPeriod(now) };
}

/** The first instant of the next UTC month, when the allowance starts again. */
function nextMonth(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}

/**
 * Takes `n` evaluations of this month's allowance, all or none, in one statement (run it in the
 * transaction that creates the jobs, so a refused or failed submission takes nothing).
 * Throws 403 QUOTA_EXCEEDED when they do not fit.
 */
export async function takeEvaluations(tx: Sql, accountId: string, plan: CorePlan, n: number, now: Date): Promise<void> {
  const key = evaluationCounter(accountId, now);
  const limit = plan.evaluationsPerMonth;
  const rows = await tx.query<{ value: number }>(
    `INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, service, counter, period)
     DO UPDATE SET value = usage_counters.value + EXCLUDED.value
       WHERE $6::bigint IS NULL OR usage_counters.value + EXCLUDED.value <= $6::bigint
     RETURNING value`,
    [key.accountId, key.service, key.counter, key.period, n, limit],
  );
  const row = rows[0];
  if (!row || (limit !== null && Number(row.value) > limit)) {
    throw coreError(
      'QUOTA_EXCEEDED',
      `Evaluation quota exceeded: the ${plan.name} plan allows ${limit} circuit evaluations per month ` +
        `and this submission needs ${n} more; upgrade the plan or wait until ${nextMonth(now)}`,
    );
  }
}
