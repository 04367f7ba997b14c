/**
 * Interface 2 authentication (`X-API-Key`, or `Authorization: Bearer`) and the plan's limits
 * per key: requests per minute with `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` (Unix seconds) on every authenticated answer, counted across the
 * cluster's processes by platform/limits (a refused request does not count), and jobs per UTC
 * day, a counter in the database (`usage_counters`) taken in one conditional statement.
 */
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { presentedKey } from '../../platform/http/auth.ts';
import { keyAuthenticatorFor, type KeyAuthenticator } from '../../platform/identity/key-cache.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import { limiterFor, MINUTE } from '../../platform/limits/windows.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { supplierError, supplierOfPath } from './errors.ts';
import { supplierPlan, type SupplierPlan } from '../../platform/quantum-jobs/plans.ts';

declare module 'fastify' {
  interface FastifyRequest {
    suppliersIdentity?: Identity;
  }
}

export const SERVICE_ID = 'suppliers';

export function suppliersAuth(ctx: ServiceContext): preHandlerAsyncHookHandler {
  let keys: KeyAuthenticator | null = null;
  const limiter = limiterFor(ctx.db);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const supplier = supplierOfPath(req.url.split('?')[0]!);
    const raw = presentedKey(req, 'either');
    if (!raw) throw supplierError('AUTH_REQUIRED', 'An API key is required: send X-API-Key or Authorization: Bearer', { supplier });
    keys ??= await keyAuthenticatorFor(ctx.db);
    const who = await keys.authenticate(raw, SERVICE_ID, 'api_key', ctx.now());
    if (!who) throw supplierError('AUTH_INVALID', 'Invalid, expired or revoked API key', { supplier });
    const plan = supplierPlan(who.plan);
    const now = ctx.now();
    const taken = await limiter.take(`suppliers:key:${who.keyId}`, [{ name: 'minute', limit: plan.requestsPerMinute, ms: MINUTE }], now);
    const reset = Math.floor(now.getTime() / 60_000) * 60 + 60;
    const headers = {
      'x-ratelimit-limit': String(plan.requestsPerMinute),
      'x-ratelimit-remaining': String(taken.ok ? (taken.remaining ?? plan.requestsPerMinute) : 0),
      'x-ratelimit-reset': String(reset),
    };
    reply.headers(headers);
    if (!taken.ok) {
      const retry = String(taken.retryAfterSeconds);
      throw supplierError('RATE_LIMITED', `Rate limit of ${plan.requestsPerMinute} requests per minute exceeded for the ${plan.name} plan`, { supplier, limit: plan.requestsPerMinute }, { ...headers, 'retry-after': retry });
    }
    req.suppliersIdentity = who;
  };
}

export function who(req: FastifyRequest): Identity {
  if (!req.suppliersIdentity) throw new Error('route reached without authentication');
  return req.suppliersIdentity;
}

/**
 * Takes one of the key's jobs of the day; refuses with 429 JOB_LIMIT_EXCEEDED when the plan's
 * daily jobs are used. One conditional upsert, so concurrent submissions never pass the limit.
 */
export async function takeJobSlot(ctx: ServiceContext, id: Identity, plan: SupplierPlan, supplier: string | null, count = 1): Promise<void> {
  if (plan.jobsPerDay === null) return;
  const day = ctx.now().toISOString().slice(0, 10);
  const rows = await ctx.db.query(
    `INSERT INTO usage_counters AS u (account_id, service, counter, period, value) SELECT $1, $2, $3, $4, $5::bigint WHERE $5::bigint <= $6::bigint
     ON CONFLICT (account_id, service, counter, period) DO UPDATE SET value = u.value + EXCLUDED.value WHERE u.value + EXCLUDED.value <= $6::bigint
     RETURNING value`,
    [id.accountId, SERVICE_ID, `jobs_day:${id.keyId}`, day, count, plan.jobsPerDay],
  );
  if (!rows.length) {
    throw supplierError('JOB_LIMIT_EXCEEDED', `The ${plan.name} plan allows ${plan.jobsPerDay} jobs per day per API key`, { supplier, limit: plan.jobsPerDay });
  }
}

/** Gives back job slots taken for a submission that was then refused. */
export async function returnJobSlot(ctx: ServiceContext, id: Identity, plan: SupplierPlan, count = 1): Promise<void> {
  if (plan.jobsPerDay === null) return;
  const day = ctx.now().toISOString().slice(0, 10);
  await ctx.db.query(
    'UPDATE usage_counters SET value = GREATEST(0, value - $5) WHERE account_id = $1 AND service = $2 AND counter = $3 AND period = $4',
    [id.accountId, SERVICE_ID, `jobs_day:${id.keyId}`, day, count],
  );
}
