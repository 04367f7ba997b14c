/** What the variant Q routes share: the context, the engine, authentication, limits, licensing, events. */
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { checkFeatureKey } from '../../../platform/licenses/feature-keys.ts';
import { countLicenseValidation } from '../../../platform/observability/families.ts';
import type { ServiceContext } from '../../../platform/service.ts';
import { pathTenant, resolveCaller, type Caller } from '../caller.ts';
import { qError } from '../errors.ts';
import type { DatasetIndexes } from '../datasets.ts';
import type { Language } from '../language.ts';
import { callerBudget, operatorBudget, tenantBudget, type QLimits } from '../limits.ts';
import type { TenantRow } from '../tenants.ts';
import type { Adapters } from '../training/adapters.ts';
import type { Events } from '../events.ts';
import type { Trainer } from '../training/runner.ts';

export interface QDeps {
  ctx: ServiceContext;
  language: Language;
  adapters: Adapters;
  events: Events;
  trainer: Trainer;
  /** The datasets' search indexes this app keeps open. */
  datasets: DatasetIndexes;
  /** The process's counters of limits and usage. */
  limits: QLimits;
  /** `Authorization: Bearer <key>` of this service (sets `req.identity`), checked before the body is. */
  bearerAuth: preValidationAsyncHookHandler;
  /** Whether the start's load of the default chat model (`ctx.warmUp`) is still to run or running. */
  warmingUp: () => boolean;
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
 * The caller of an authenticated request, counted against its limits (../limits.ts).
 * `inference`: chat, embeddings and rerank, which spend the budget of the tenant the caller
 * acts for; otherwise the route is management or a read, which an admin key does as the
 * operator. `tokens`: the route spends tokens, so it is refused once the day's are spent.
 */
export async function begin(deps: QDeps, req: FastifyRequest, opts: { tokens?: boolean; inference?: boolean } = {}): Promise<Caller> {
  const caller = await resolveCaller(deps.ctx.db, req);
  await deps.limits.admit(opts.inference ? callerBudget(caller) : operatorBudget(caller), deps.ctx.now(), Boolean(opts.tokens));
  return caller;
}

/**
 * Work on the tenant of a `/v1/tenants/{tenant_id}/...` path (feedback, dataset uploads,
 * training): it spends that tenant's tier, also when an admin key does it. A tenant key is
 * counted before the path is checked, so probing other tenants' paths is counted too.
 */
export async function beginForTenant(deps: QDeps, req: FastifyRequest, ref: string): Promise<{ caller: Caller; tenant: TenantRow }> {
  const db = deps.ctx.db;
  const caller = await resolveCaller(db, req);
  if (!caller.admin) await deps.limits.admit(callerBudget(caller), deps.ctx.now(), false);
  const tenant = await pathTenant(db, caller, ref);
  if (caller.admin) await deps.limits.admit(tenantBudget(tenant), deps.ctx.now(), false);
  return { caller, tenant };
}

export type LicensedFeature = 'quantum_rerank' | 'lora_training';

/** 403 FORBIDDEN naming the feature unless `X-License-Key` carries it (checked on every request). */
export async function requireLicense(deps: QDeps, req: FastifyRequest, caller: Caller, feature: LicensedFeature): Promise<void> {
  const h = req.headers['x-license-key'];
  const key = Array.isArray(h) ? h[0] : h;
  const r = await checkFeatureKey(deps.ctx.db, { key, service: 'llm', feature, accountId: caller.accountId, now: deps.ctx.now() });
  countLicenseValidation('llm', 'q', r.ok ? 'valid' : r.reason);
  if (!r.ok) {
    const why = r.reason === 'missing' ? 'no X-License-Key was sent' : `the X-License-Key is ${r.reason.replaceAll('_', ' ')}`;
    throw qError('FORBIDDEN', `The licensed feature ${feature} needs an X-License-Key that carries it: ${why}`);
  }
}
