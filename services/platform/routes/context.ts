/** What the interface 5 routes share. */
import type { preHandlerAsyncHookHandler } from 'fastify';
import type { ServiceContext } from '../../../platform/service.ts';
import type { ComputeRunner } from '../compute.ts';

export interface PlatformDeps {
  ctx: ServiceContext;
  /** Per-IP rate limit, then the bearer key. */
  auth: preHandlerAsyncHookHandler[];
  /** Per-IP rate limit only (the unauthenticated key list). */
  limit: preHandlerAsyncHookHandler;
  compute: ComputeRunner;
}

export const TAG = 'Platform execution';
export const security = [{ bearer: [] }];
