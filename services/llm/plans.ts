/**
 * Variant Q plans (spec "Limits"): a tenant's `tier` is one of these names. Enterprise is
 * "custom" requests per minute in the spec: 2,000 here (configurable per process with
 * LATTICE_LLM_ENTERPRISE_RPM) and unlimited tokens.
 */
export interface QPlan {
  name: 'free' | 'pro' | 'business' | 'enterprise';
  requestsPerMinute: number;
  /** Tokens per UTC day; Infinity is unlimited. */
  tokensPerDay: number;
}

/** Prefix of variant Q keys (`lq_...`): admin keys from `lattice keys create` and tenant keys. */
export const Q_KEY_PREFIX = 'lq';

export const Q_PLANS: readonly QPlan[] = [
  { name: 'free', requestsPerMinute: 20, tokensPerDay: 10_000 },
  { name: 'pro', requestsPerMinute: 100, tokensPerDay: 100_000 },
  { name: 'business', requestsPerMinute: 500, tokensPerDay: 1_000_000 },
  { name: 'enterprise', requestsPerMinute: Number(process.env.LATTICE_LLM_ENTERPRISE_RPM) || 2_000, tokensPerDay: Infinity },
];

export const TIERS = Q_PLANS.map((p) => p.name);

/** The plan named `name` in any letter case; the lowest when unknown or missing. */
export function qPlan(name: string | null | undefined): QPlan {
  const wanted = (name ?? '').trim().toLowerCase();
  return Q_PLANS.find((p) => p.name === wanted) ?? Q_PLANS[0]!;
}

/** The canonical tier name for `name` in any letter case, or null. */
export function tierName(name: string): QPlan['name'] | null {
  return Q_PLANS.find((p) => p.name === name.trim().toLowerCase())?.name ?? null;
}
