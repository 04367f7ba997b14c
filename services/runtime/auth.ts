/**
 * `Authorization: Bearer <key>` (spec, interface 6) and the roles' permissions: every route
 * needs `runtime:read`; submit, approve and cancel need `runtime:execute`, which a `viewer`
 * key lacks (403 FORBIDDEN, nothing changes).
 */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { identityOf, requireKey } from '../../platform/http/auth.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { runtimeError } from './errors.ts';
import { permissionsOf, type Permission } from './plans.ts';

export interface RuntimeAuth {
  read: preHandlerAsyncHookHandler[];
  execute: preHandlerAsyncHookHandler[];
}

function require(permission: Permission): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest) => {
    const who = identityOf(req);
    if (!permissionsOf(who.role).includes(permission)) {
      throw runtimeError('FORBIDDEN', `The ${who.role} role lacks the ${permission} permission`, { role: who.role, required_permission: permission });
    }
  };
}

export function runtimeAuth(ctx: ServiceContext): RuntimeAuth {
  const key = requireKey({
    db: ctx.db,
    service: 'runtime',
    header: 'bearer',
    unauthorized: () => runtimeError('UNAUTHORIZED', 'Missing or invalid API key (send Authorization: Bearer <key>)'),
  });
  return { read: [key, require('runtime:read')], execute: [key, require('runtime:execute')] };
}

export function who(req: FastifyRequest): Identity {
  return identityOf(req);
}
