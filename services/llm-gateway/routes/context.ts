/** What the gateway's routes share: the context, the call pipeline, and the two kinds of authentication. */
import type { FastifyRequest } from 'fastify';
import { presentedKey } from '../../../platform/http/auth.ts';
import type { Identity } from '../../../platform/identity/keys.ts';
import type { ConsoleSessions } from '../../../platform/http/session.ts';
import type { ServiceContext } from '../../../platform/service.ts';
import { errors } from '../errors.ts';
import type { Gateway } from '../gateway.ts';
import { DEFAULT_SCOPES, SERVICE_ID } from '../keys.ts';
import { GATEWAY_KEY_PREFIX } from '../scopes.ts';

export interface GatewayDeps {
  ctx: ServiceContext;
  gateway: Gateway;
  prefix: string;
  /** onRequest hook of /api/v1: a valid key with `scope`, else the spec's 401 or 403. */
  apiKey: (scope: string) => (req: FastifyRequest) => Promise<void>;
  /** Console sign-in; `sessions.required()` guards the console API (401 `Not authenticated`). */
  sessions: ConsoleSessions;
  session: (req: FastifyRequest) => Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    rawApiKey?: string;
  }
}

export const TAG_API = 'Chat completions (variant P)';
export const TAG_CONSOLE = 'Console';
export const bearerSecurity = [{ bearerAuth: [] }];
export const cookieSecurity = [{ sessionCookie: [] }];

export function apiKeyHook(gateway: Gateway) {
  return (scope: string) =>
    async (req: FastifyRequest): Promise<void> => {
      const raw = presentedKey(req, 'bearer');
      if (!raw || !raw.startsWith(`${GATEWAY_KEY_PREFIX}_`)) throw errors.missingKey();
      const identity = await gateway.keys.authenticate(raw, SERVICE_ID, 'api_key', gateway.ctx.now());
      if (!identity) throw errors.invalidKey();
      const scopes = identity.scopes.length ? identity.scopes : DEFAULT_SCOPES;
      if (!scopes.includes(scope)) throw errors.scope(scope);
      req.identity = identity;
      req.rawApiKey = raw;
    };
}

export function identityOf(req: FastifyRequest): Identity {
  if (!req.identity) throw new Error('route reached without an API key');
  return req.identity;
}
