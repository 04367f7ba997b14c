/**
 * Interface 5 authentication and the per-IP rate limit. Every request under
 * /api/v1/platform counts against its client address (60 per minute by default, spec; set
 * LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE): fixed UTC minutes counted across the cluster
 * (platform/limits), so the limit holds across processes; above it, 429 `rate_limit_exceeded` with
 * Retry-After, before the key is even looked at. Then `Authorization: Bearer <key>` (API
 * keys use bearer only: no cookies, no CSRF token).
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { presentedKey } from '../../platform/http/auth.ts';
import { keyAuthenticatorFor, type KeyAuthenticator } from '../../platform/identity/key-cache.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import { limiterFor, MINUTE } from '../../platform/limits/windows.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { platformError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    platform?: Identity;
  }
}

export const DEFAULT_RATE_PER_MINUTE = 60;

/** The per-IP limit from the environment; a bad value stops the start with a message naming it. */
export function ratePerMinute(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE;
  if (raw === undefined || raw === '') return DEFAULT_RATE_PER_MINUTE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`LATTICE_PLATFORM_RATE_LIMIT_PER_MINUTE must be a whole number of requests above 0; got '${raw}'`);
  return n;
}

export function rateLimit(ctx: ServiceContext, perMinute: number) {
  const limiter = limiterFor(ctx.db);
  const windows = [{ name: 'minute', limit: perMinute, ms: MINUTE }];
  return async (req: FastifyRequest): Promise<void> => {
    const taken = await limiter.take(`platform:ip:${req.ip}`, windows, ctx.now());
    if (!taken.ok) {
      const retry = taken.retryAfterSeconds;
      throw platformError('rate_limit_exceeded', `More than ${perMinute} requests per minute from ${req.ip}`, { limit: perMinute, retry_after_seconds: retry }, { 'retry-after': String(retry) });
    }
  };
}

export function platformAuth(ctx: ServiceContext): preHandlerAsyncHookHandler {
  let keys: KeyAuthenticator | null = null;
  return async (req: FastifyRequest) => {
    const raw = presentedKey(req, 'bearer');
    if (!raw) throw platformError('unauthorized', 'Send Authorization: Bearer <API key>');
    keys ??= await keyAuthenticatorFor(ctx.db);
    const who = await keys.authenticate(raw, 'platform', 'api_key', ctx.now());
    if (!who) throw platformError('unauthorized', 'Invalid, expired or revoked API key');
    req.platform = who;
  };
}

export function who(req: FastifyRequest): Identity {
  if (!req.platform) throw new Error('route reached without authentication');
  return req.platform;
}
