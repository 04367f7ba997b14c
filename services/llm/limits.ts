/**
 * Limits (spec "Limits"): requests per minute in fixed one-minute windows and tokens per UTC
 * day, both counted in the database by single statements, so they hold across processes
 * sharing a store. A request over the minute's budget, or one that needs tokens when the
 * day's are spent, gets 429 RATE_LIMITED with `retry_after` (seconds until the window or the
 * day ends).
 *
 * Whose budget a request spends:
 * - work done for a tenant (chat, embeddings, rerank with the tenant's key or an admin key's
 *   `X-Tenant-ID`; feedback, dataset uploads and training on its path) spends that tenant's
 *   tier, whoever's key it is;
 * - an admin key's tenant management and reads (tenants, settings, admin usage, webhooks,
 *   models, lists) are the operator's: no tenant tier applies, only the operator limit of
 *   the account (OPERATOR_RPM, shared by its admin keys);
 * - an admin key's inference for no tenant spends its account plan's limits.
 */
import type { Sql } from '../../platform/storage/database.ts';
import type { Caller } from './caller.ts';
import { qError } from './errors.ts';
import { qPlan } from './plans.ts';
import type { TenantRow } from './tenants.ts';

/** Requests per minute of an account's admin keys on operator routes (LATTICE_LLM_OPERATOR_RPM). */
export const OPERATOR_RPM = Number(process.env.LATTICE_LLM_OPERATOR_RPM) || 1_000;

export interface Budget {
  /** The counter's key in llm_rate_windows and llm_usage_daily. */
  subject: string;
  requestsPerMinute: number;
  /** Tokens per UTC day; Infinity is unlimited. */
  tokensPerDay: number;
  /** Whose limit it is, in the 429's message. */
  label: string;
}

function tierBudget(subject: string, tier: string | null): Budget {
  const plan = qPlan(tier);
  return { subject, requestsPerMinute: plan.requestsPerMinute, tokensPerDay: plan.tokensPerDay, label: `tier ${plan.name}` };
}

/** A tenant's tier, counted on the tenant. */
export function tenantBudget(t: TenantRow): Budget {
  return tierBudget(t.id, t.tier);
}

/** Inference: the tenant the caller acts for, else (an admin key for no tenant) its account plan. */
export function callerBudget(c: Caller): Budget {
  return c.tenant ? tenantBudget(c.tenant) : tierBudget(`key:${c.keyId}`, c.plan);
}

/** Management and reads: an admin key's are the operator's; a tenant key's spend its tier. */
export function operatorBudget(c: Caller): Budget {
  if (!c.admin) return callerBudget(c);
  return { subject: `operator:${c.accountId}`, requestsPerMinute: OPERATOR_RPM, tokensPerDay: Infinity, label: "the account's admin keys (operator limit)" };
}

function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

function secondsToMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** Counts one request; throws 429 when the minute's budget is spent or (with `needsTokens`) the day's tokens are. */
export async function admit(db: Sql, budget: Budget, now: Date, needsTokens: boolean): Promise<void> {
  const { subject } = budget;
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
    [subject, windowStart, budget.requestsPerMinute, dayOf(now)],
  );
  if (row?.requests === null || row?.requests === undefined) {
    const retry = Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - now.getTime()) / 1000));
    throw qError('RATE_LIMITED', `Rate limit of ${budget.requestsPerMinute} requests per minute reached for ${budget.label}`, retry);
  }
  if (needsTokens && Number(row.tokens ?? 0) >= budget.tokensPerDay) {
    throw qError('RATE_LIMITED', `Daily limit of ${budget.tokensPerDay} tokens reached for ${budget.label}; it resets at midnight UTC`, secondsToMidnight(now));
  }
  // Old windows are of no use: drop this subject's, now and then.
  if (Math.random() < 0.01) await db.query('DELETE FROM llm_rate_windows WHERE subject = $1 AND window_start < $2', [subject, windowStart]);
}

/** The tokens a request used, counted against the day. */
export async function chargeTokens(db: Sql, c: Caller, now: Date, tokens: number): Promise<void> {
  if (tokens <= 0) return;
  const { subject } = callerBudget(c);
  await db.query(
    `INSERT INTO llm_usage_daily (subject, day, tokens) VALUES ($1, $2, $3)
     ON CONFLICT (subject, day) DO UPDATE SET tokens = llm_usage_daily.tokens + $3`,
    [subject, dayOf(now), tokens],
  );
}
