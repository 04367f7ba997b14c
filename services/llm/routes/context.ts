/** What the variant Q routes share: the context, the engine, authentication, limits, licensing, events. */
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { checkFeatureKey } from '../../../platform/licenses/feature-keys.ts';
import type { ServiceContext } from '../../../platform/service.ts';
import { resolveCaller, type Caller } from '../caller.ts';
import { qError } from '../errors.ts';
import type { Language } from '../language.ts';
import { admit } from '../limits.ts';
import type { Adapters } from '../training/adapters.ts';
import type { Events } from '../events.ts';
import type { Trainer } from '../training/runner.ts';

export interface QDeps {
  ctx: ServiceContext;
  language: Language;
  adapters: Adapters;
  events: Events;
  trainer: Trainer;
  /** `Authorization: Bearer <key>` of this service (sets `req.identity`). */
  bearerAuth: preHandlerAsyncHookHandler;
}

export const bearerSecurity = [{ bearerAuth: [] }];
export const TAG = {
  inference: 'Inference',
  tenants: 'Tenants',
  feedback: 'Feedback',
  datasets: 'Datasets',
  training: 'Training',
  admin: 'Admin',
} as const;

/**
 * The caller of an authenticated request, counted against its limits. `tokens`: the route
 * spends tokens, so it is refused once the day's are spent.
 */
export async function begin(deps: QDeps, req: FastifyRequest, opts: { tokens?: boolean } = {}): Promise<Caller> {
  const caller = await resolveCaller(deps.ctx.db, req);
  await admit(deps.ctx.db, caller, deps.ctx.now(), Boolean(opts.tokens));
  return caller;
}

export type LicensedFeature = 'quantum_rerank' | 'lora_training';

/** 403 FORBIDDEN naming the feature unless `X-License-Key` carries it (checked on every request). */
export async function requireLicense(deps: QDeps, req: FastifyRequest, caller: Caller, feature: LicensedFeature): Promise<void> {
  const h = req.headers['x-license-key'];
  const key = Array.isArray(h) ? h[0] : h;
  const r = await checkFeatureKey(deps.ctx.db, { key, service: 'llm', feature, accountId: caller.accountId, now: deps.ctx.now() });
  if (!r.ok) {
    const why = r.reason === 'missing' ? 'no X-License-Key was sent' : `the X-License-Key is ${r.reason.replaceAll('_', ' ')}`;
    throw qError('FORBIDDEN', `The licensed feature ${feature} needs an X-License-Key that carries it: ${why}`);
  }
}
