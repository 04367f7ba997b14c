/**
 * The nav plan's request rate (CONTRACT: `standard`, 600 requests per minute per key), counted
 * in fixed UTC minutes across the cluster (platform/limits).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { identityOf } from '../../platform/http/auth.ts';
import { MINUTE, type WindowLimiter } from '../../platform/limits/windows.ts';
import { navError } from './errors.ts';

/** preValidation hook after authentication: 429 RATE_LIMIT_EXCEEDED with Retry-After past the plan's rate. */
export function rateLimitHook(limiter: WindowLimiter, perMinute: number, now: () => Date) {
  const limit = String(perMinute);
  const windows = [{ name: 'minute', limit: perMinute, ms: MINUTE }];
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { keyId } = identityOf(req);
    const taken = await limiter.take(`nav:key:${keyId}`, windows, now());
    reply.header('x-ratelimit-limit', limit);
    if (!taken.ok) {
      const wait = taken.retryAfterSeconds;
      reply.header('x-ratelimit-remaining', '0');
      throw navError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: the standard plan allows ${perMinute} requests per minute per key; retry in ${wait} s`, {
        'retry-after': String(wait),
      });
    }
    reply.header('x-ratelimit-remaining', String(taken.remaining ?? perMinute));
  };
}
