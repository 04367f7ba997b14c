/**
 * The nav plan's request rate (CONTRACT: `standard`, 600 requests per minute per key): a token
 * bucket per key in this process holding a minute's worth, refilled continuously.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { identityOf } from '../../platform/http/auth.ts';
import { navError } from './errors.ts';

export class MinuteLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(readonly perMinute: number) {}

  /** Takes one request from `key`'s bucket: what is left, or null when empty. */
  take(key: string, now = performance.now()): number | null {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: this.perMinute, at: now };
      this.buckets.set(key, bucket);
      if (this.buckets.size > 100_000) this.buckets.delete(this.buckets.keys().next().value!);
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * this.perMinute);
    bucket.at = now;
    if (bucket.tokens < 1) return null;
    bucket.tokens -= 1;
    return Math.floor(bucket.tokens);
  }

  /** Seconds until `key` may send one request again. */
  waitSeconds(key: string): number {
    const tokens = this.buckets.get(key)?.tokens ?? this.perMinute;
    return Math.max(1, Math.ceil(((1 - tokens) * 60) / this.perMinute));
  }
}

/** preValidation hook after authentication: 429 RATE_LIMIT_EXCEEDED with Retry-After past the plan's rate. */
export function rateLimitHook(limiter: MinuteLimiter) {
  const limit = String(limiter.perMinute);
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { keyId } = identityOf(req);
    const left = limiter.take(keyId);
    reply.header('x-ratelimit-limit', limit);
    if (left === null) {
      const wait = limiter.waitSeconds(keyId);
      reply.header('x-ratelimit-remaining', '0');
      throw navError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: the standard plan allows ${limiter.perMinute} requests per minute per key; retry in ${wait} s`, {
        'retry-after': String(wait),
      });
    }
    reply.header('x-ratelimit-remaining', String(left));
  };
}
