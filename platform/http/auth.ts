/**
 * Authentication of requests by API key, in the header styles the specs use:
 * `Authorization: Bearer <key>`, `X-API-Key: <key>`, or either.
 */
import type { FastifyRequest } from 'fastify';
import { keyAuthenticatorFor, type KeyAuthenticator } from '../identity/key-cache.ts';
import type { Identity, KeyKind } from '../identity/keys.ts';
import type { Database } from '../storage/database.ts';
import { ApiError } from './errors.ts';
import { limiterFor, SECOND } from '../limits/windows.ts';

export type KeyHeader = 'bearer' | 'x-api-key' | 'either';

declare module 'fastify' {
  interface FastifyRequest {
    identity?: Identity;
  }
}

export function presentedKey(req: FastifyRequest, header: KeyHeader): string | null {
  if (header !== 'x-api-key') {
    const auth = req.headers.authorization;
    if (typeof auth === 'string') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      if (match) return match[1]!;
    }
  }
  if (header !== 'bearer') {
    const key = req.headers['x-api-key'];
    if (typeof key === 'string' && key.trim()) return key.trim();
  }
  return null;
}

export interface AuthOptions {
  db: Database;
  service: string;
  header: KeyHeader;
  kind?: KeyKind;
  /** Requests per second allowed for a plan (fixed one-second windows counted across the cluster); omitted or Infinity means unlimited. */
  ratePerSecond?: (plan: string | null) => number;
  /** The error thrown for a missing or invalid key, in the service's words. */
  unauthorized: () => ApiError;
  rateLimited?: () => ApiError;
}

/** A preHandler that sets `req.identity` or throws the service's 401 / 429. */
export function requireKey(options: AuthOptions) {
  const limiter = limiterFor(options.db);
  let keys: KeyAuthenticator | null = null;
  return async (req: FastifyRequest): Promise<void> => {
    const raw = presentedKey(req, options.header);
    if (!raw) throw options.unauthorized();
    keys ??= await keyAuthenticatorFor(options.db);
    const identity = await keys.authenticate(raw, options.service, options.kind ?? 'api_key');
    if (!identity) throw options.unauthorized();
    const rate = options.ratePerSecond?.(identity.plan);
    if (rate !== undefined && Number.isFinite(rate)) {
      const taken = await limiter.take(`${options.service}:key:${identity.keyId}:second`, [{ name: 'second', limit: rate, ms: SECOND }]);
      if (!taken.ok) throw options.rateLimited?.() ?? new ApiError(429, 'rate_limited', 'Rate limit exceeded', {}, { 'retry-after': '1' });
    }
    req.identity = identity;
  };
}

export function identityOf(req: FastifyRequest): Identity {
  if (!req.identity) throw new Error('route reached without authentication');
  return req.identity;
}
