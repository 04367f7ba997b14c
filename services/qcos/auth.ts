/**
 * `X-API-Key` authentication and the plan's request limits per key: per UTC minute and per UTC
 * day (429 RATE_LIMITED with Retry-After), counted across the cluster's processes by
 * platform/limits (a request refused by one window counts in neither). Every authenticated
 * request, refused or not, also counts in the month's `api_calls` of the usage (in batches:
 * platform/identity/usage-batch.ts).
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { presentedKey } from '../../platform/http/auth.ts';
import { keyAuthenticatorFor, type KeyAuthenticator } from '../../platform/identity/key-cache.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import { usageBatchFor, type CounterKey } from '../../platform/identity/usage-batch.ts';
import { DAY, limiterFor, MINUTE } from '../../platform/limits/windows.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { qcosError } from './errors.ts';
import { qcosPlan } from './plans.ts';

declare module 'fastify' {
  interface FastifyRequest {
    qcos?: Identity;
  }
}

/** The month's request count, shown as `api_calls` of the usage (counted in batches, not enforced). */
export function requestsCounter(accountId: string, now: Date): CounterKey {
  return { accountId, service: 'qcos', counter: 'requests', period: now.toISOString().slice(0, 7) };
}

export function qcosAuth(ctx: ServiceContext): preHandlerAsyncHookHandler {
  let keys: KeyAuthenticator | null = null;
  const limiter = limiterFor(ctx.db);
  const usage = usageBatchFor(ctx.db);
  return async (req: FastifyRequest) => {
    const raw = presentedKey(req, 'x-api-key');
    if (!raw) throw qcosError('UNAUTHORIZED', 'Missing X-API-Key header');
    keys ??= await keyAuthenticatorFor(ctx.db);
    const who = await keys.authenticate(raw, 'qcos', 'api_key', ctx.now());
    if (!who) throw qcosError('UNAUTHORIZED', 'Invalid or revoked API key');
    const plan = qcosPlan(who.plan);
    const now = ctx.now();
    usage.add(requestsCounter(who.accountId, now));
    const windows = [
      { name: 'minute', limit: plan.requestsPerMinute, ms: MINUTE },
      { name: 'day', limit: plan.requestsPerDay, ms: DAY },
    ];
    const taken = await limiter.take(`qcos:key:${who.keyId}`, windows, now);
    if (!taken.ok) {
      const limit = taken.window.limit!;
      const retry = taken.retryAfterSeconds;
      const per = taken.window.name;
      throw qcosError('RATE_LIMITED', `Rate limit of ${limit} requests per ${per} exceeded for the ${plan.name} plan`,
        { limit, window: per, retry_after_seconds: retry }, { 'retry-after': String(retry) });
    }
    req.qcos = who;
  };
}

export function who(req: FastifyRequest): Identity {
  if (!req.qcos) throw new Error('route reached without authentication');
  return req.qcos;
}
