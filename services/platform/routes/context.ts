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
  /** Work a route started and did not wait for (a running circuit's abort); the app waits for it on close. */
  background: Set<Promise<unknown>>;
}

export const TAG = 'Platform execution';
export const security = [{ bearer: [] }];
