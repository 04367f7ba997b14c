/** What the interface 1 routes share: the service context and the key check with the plan's rate limits. */
import type { preHandlerAsyncHookHandler } from 'fastify';
import type { ServiceContext } from '../../../platform/service.ts';

export interface QcosDeps {
  ctx: ServiceContext;
  /** `X-API-Key`, then the plan's per-minute and per-day limits. */
  auth: preHandlerAsyncHookHandler;
}
