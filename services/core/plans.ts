/**
 * Core plans (CONTRACT "Credits, plans and limits"): evaluations (circuits submitted for
 * optimization) per month 100 / 10000 / unlimited, and requests per minute 60 / 300 / 1000.
 */
export interface CorePlan {
  name: 'free' | 'pro' | 'enterprise';
  /** Circuits per UTC month; null means unlimited. */
  evaluationsPerMonth: number | null;
  requestsPerMinute: number;
}

export const CORE_PLANS: readonly CorePlan[] = [
  { name: 'free', evaluationsPerMonth: 100, requestsPerMinute: 60 },
  { name: 'pro', evaluationsPerMonth: 10_000, requestsPerMinute: 300 },
  { name: 'enterprise', evaluationsPerMonth: null, requestsPerMinute: 1_000 },
];

/** The plan named `name` in any letter case; the lowest plan when the name is unknown or missing. */
export function corePlan(name: string | null | undefined): CorePlan {
  const wanted = (name ?? '').trim().toLowerCase();
  return CORE_PLANS.find((p) => p.name === wanted) ?? CORE_PLANS[0]!;
}
