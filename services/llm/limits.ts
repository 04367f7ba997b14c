/**
 * Limits (spec "Limits"): requests per minute in fixed one-minute windows and tokens per UTC
 * day, counted across every process of the cluster by platform/limits: requests by its window
 * limiter (exact, from a leased slice in the common case: no statement per request), tokens by
 * its tally of units settled after the fact (a process's own tokens count at once, another
 * process's within 300 ms). A request over the minute's budget, or one that needs tokens when
 * the day's are spent, gets 429 RATE_LIMITED with `retry_after` (seconds until the window or
 * the day ends). A request refused for the day's tokens is not counted in the minute.
 *
 * The admin usage report's requests and tokens per tenant and day (llm_usage_daily) are shown,
 * not enforced: they are written in batches, at most a second after the request (flushed
 * before this process reads them back).
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
import { WindowTally, windowStart } from '../../platform/limits/tallies.ts';
import { DAY, limiterFor, MINUTE, type WindowLimiter } from '../../platform/limits/windows.ts';
import { CounterBatch } from '../../platform/storage/counter-batch.ts';
import type { Database } from '../../platform/storage/database.ts';
import type { Caller } from './caller.ts';
import { qError } from './errors.ts';
import { qPlan } from './plans.ts';
import type { TenantRow } from './tenants.ts';

/** Requests per minute of an account's admin keys on operator routes (LATTICE_LLM_OPERATOR_RPM). */
export const OPERATOR_RPM = Number(process.env.LATTICE_LLM_OPERATOR_RPM) || 1_000;

export interface Budget {
  /** Whose counts these are (a tenant's id, `key:<id>`, `operator:<account>`): the key of llm_usage_daily. */
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

/** The limit windows' subjects of a budget (platform/limits' table is shared by every service). */
export const requestsSubject = (subject: string) => `llm:${subject}:requests`;
export const tokensSubject = (subject: string) => `llm:${subject}:tokens`;

function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The process's counters of the service's limits and usage. */
export class QLimits {
  private readonly requests: WindowLimiter;
  private readonly tokens: WindowTally;
  /** llm_usage_daily: [requests, tokens] per subject and day. */
  private readonly usage: CounterBatch<{ subject: string; day: string }>;

  constructor(private readonly db: Database) {
    this.requests = limiterFor(db);
    this.tokens = new WindowTally(db);
    this.usage = new CounterBatch(db, {
      idOf: (k) => `${k.subject}\0${k.day}`,
      write: writeDailyUsage,
      // Four arrays: four parameters whatever the rows.
      rowsPerStatement: 10_000,
    });
  }

  /** Counts one request; throws 429 when the minute's budget is spent or (with `needsTokens`) the day's tokens are. */
  async admit(budget: Budget, now: Date, needsTokens: boolean): Promise<void> {
    const { subject } = budget;
    if (needsTokens && Number.isFinite(budget.tokensPerDay) && (await this.tokens.used(tokensSubject(subject), DAY, now)) >= budget.tokensPerDay) {
      const retry = Math.max(1, Math.ceil((windowStart(now, DAY) + DAY - now.getTime()) / 1000));
      throw qError('RATE_LIMITED', `Daily limit of ${budget.tokensPerDay} tokens reached for ${budget.label}; it resets at midnight UTC`, retry);
    }
    const taken = await this.requests.take(requestsSubject(subject), [{ name: 'minute', limit: budget.requestsPerMinute, ms: MINUTE }], now);
    if (!taken.ok) {
      throw qError('RATE_LIMITED', `Rate limit of ${budget.requestsPerMinute} requests per minute reached for ${budget.label}`, taken.retryAfterSeconds);
    }
    this.usage.add({ subject, day: dayOf(now) }, [1, 0]);
  }

  /** The tokens a request used, counted against the day. */
  chargeTokens(c: Caller, now: Date, tokens: number): void {
    if (tokens <= 0) return;
    const { subject } = callerBudget(c);
    this.tokens.add(tokensSubject(subject), DAY, windowStart(now, DAY), tokens);
    this.usage.add({ subject, day: dayOf(now) }, [0, tokens]);
  }

  /** Writes this process's usage counts, before the report reads them. */
  flushUsage(): Promise<void> {
    return this.usage.flush();
  }

  /**
   * A deleted tenant's usage rows: this process's counts are written first, so that none comes
   * back after the delete. (Its limit windows are platform/limits' rows, pruned an hour after
   * each window ends; a tenant id is never reused.)
   */
  async forget(subject: string): Promise<void> {
    await this.usage.flush();
    await this.db.query('DELETE FROM llm_usage_daily WHERE subject = $1', [subject]);
  }

  async close(): Promise<void> {
    await this.tokens.flush();
    await this.usage.close();
  }
}

async function writeDailyUsage(db: Database, batch: ReadonlyArray<{ key: { subject: string; day: string }; amounts: number[] }>): Promise<void> {
  await db.query(
    `INSERT INTO llm_usage_daily AS u (subject, day, requests, tokens)
     SELECT * FROM unnest($1::text[], $2::date[], $3::bigint[], $4::bigint[])
     ON CONFLICT (subject, day) DO UPDATE SET requests = u.requests + EXCLUDED.requests, tokens = u.tokens + EXCLUDED.tokens`,
    [batch.map((b) => b.key.subject), batch.map((b) => b.key.day), batch.map((b) => b.amounts[0] ?? 0), batch.map((b) => b.amounts[1] ?? 0)],
  );
}
