/** Test helpers of the positioning service: a fast simulator service, keys, polling until a condition holds. */
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import { createNavService } from './service.ts';
import type { NavSettings } from './settings.ts';

/** Simulated time runs this many times faster than the wall clock in tests. */
export const TEST_RATE = 10;

export async function startNav(overrides: Partial<NavSettings> = {}): Promise<TestService & { auth: Record<string, string> }> {
  const svc = await startTestService(createNavService({ rate: TEST_RATE, anomalyEpochs: 100, seed: 11, controlPollMs: 100, ...overrides }));
  const { key } = await svc.newKey();
  return Object.assign(svc, { auth: { authorization: `Bearer ${key}` } });
}

/** A second nav app on the same store (another source), listening on its own port. */
export async function startSibling(svc: TestService, overrides: Partial<NavSettings>): Promise<{ url: string; app: ServiceApp }> {
  const app = await createNavService({ anomalyEpochs: 0, controlPollMs: 60_000, ...overrides }).build(svc.ctx, { prefix: '' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, app };
}

/** Calls `path` until `ok(body)` holds; returns that body or throws with the last one. */
export async function until(url: string, headers: Record<string, string>, ok: (body: any) => boolean, timeoutMs = 30_000, init: { method?: string; body?: unknown } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const r = await call(url, { ...init, headers });
    last = r.body;
    if (ok(r.body)) return r.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms; last answer: ${JSON.stringify(last).slice(0, 800)}`);
}
