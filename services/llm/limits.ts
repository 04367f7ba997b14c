/**
 * Limits per tier (spec "Limits"): requests per minute in fixed one-minute windows and tokens
 * per UTC day, both counted in the database by single statements, so they hold across
 * processes sharing a store. A request over the minute's budget, or one that needs tokens
 * when the day's are spent, gets 429 RATE_LIMITED with `retry_after` (seconds until the
 * window or the day ends). The subject is the tenant, or the admin key when it acts for no
 * tenant (then its account plan's limits apply).
 */
import type { Sql } from '../../platform/storage/database.ts';
import type { Caller } from './caller.ts';
import { qError } from './errors.ts';
import { qPlan, type QPlan } from './plans.ts';

export function subjectOf(c: Caller): { subject: string; plan: QPlan } {
  return c.tenant ? { subject: c.tenant.id, plan: qPlan(c.tenant.tier) } : { subject: `key:${c.keyId}`, plan: qPlan(c.plan) };
}

function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

function secondsToMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** Counts one request; throws 429 when the minute's budget is spent or (with `needsTokens`) the day's tokens are. */
export async function admit(db: Sql, c: Caller, now: Date, needsTokens: boolean): Promise<void> {
  const { subject, plan } = subjectOf(c);
  const windowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  // One statement: the minute's counter (refused at the limit) and, when it was counted, the day's.
  const [row] = await db.query<{ requests: number | null; tokens: number | null }>(
    `WITH w AS (
       INSERT INTO llm_rate_windows (subject, window_start, requests) VALUES ($1, $2, 1)
       ON CONFLICT (subject, window_start) DO UPDATE SET requests = llm_rate_windows.requests + 1
         WHERE llm_rate_windows.requests < $3
       RETURNING requests),
     d AS (
       INSERT INTO llm_usage_daily (subject, day, requests) SELECT $1, $4::date, 1 WHERE EXISTS (SELECT 1 FROM w)
       ON CONFLICT (subject, day) DO UPDATE SET requests = llm_usage_daily.requests + 1
       RETURNING tokens)
     SELECT (SELECT requests FROM w) AS requests, (SELECT tokens FROM d) AS tokens`,
    [subject, windowStart, plan.requestsPerMinute, dayOf(now)],
  );
  if (row?.requests === null || row?.requests === undefined) {
    const retry = Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - now.getTime()) / 1000));
    throw qError('RATE_LIMITED', `Rate limit of ${plan.requestsPerMinute} requests per minute reached for tier ${plan.name}`, retry);
  }
  if (needsTokens && Number(row.tokens ?? 0) >= plan.tokensPerDay) {
    throw qError('RATE_LIMITED', `Daily limit of ${plan.tokensPerDay} tokens reached for tier ${plan.name}; it resets at midnight UTC`, secondsToMidnight(now));
  }
  // Old windows are of no use: drop this subject's, now and then.
  if (Math.random() < 0.01) await db.query('DELETE FROM llm_rate_windows WHERE subject = $1 AND window_start < $2', [subject, windowStart]);
}

/** The tokens a request used, counted against the day. */
export async function chargeTokens(db: Sql, c: Caller, now: Date, tokens: number): Promise<void> {
  if (tokens <= 0) return;
  const { subject } = subjectOf(c);
  await db.query(
    `INSERT INTO llm_usage_daily (subject, day, tokens) VALUES ($1, $2, $3)
     ON CONFLICT (subject, day) DO UPDATE SET tokens = llm_usage_daily.tokens + $3`,
    [subject, dayOf(now), tokens],
  );
}
