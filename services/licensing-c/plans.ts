/**
 * Variant C plans (CONTRACT): monthly licenses starter 100, professional 1,000, enterprise
 * unlimited; requests per second 100, 500 and 2,000.
 */
export interface CPlan {
  name: 'starter' | 'professional' | 'enterprise';
  monthlyLimit: number;
  requestsPerSecond: number;
}

/** Prefix of variant C API keys (`lcc_...`). */
export const C_KEY_PREFIX = 'lcc';

/** "Unlimited" as a number, the same value variant B's plan listing reports. */
export const UNLIMITED = 999_999_999;

export const C_PLANS: readonly CPlan[] = [
  { name: 'starter', monthlyLimit: 100, requestsPerSecond: 100 },
  { name: 'professional', monthlyLimit: 1_000, requestsPerSecond: 500 },
  { name: 'enterprise', monthlyLimit: UNLIMITED, requestsPerSecond: 2_000 },
];

/** The plan named `name` in any letter case; the lowest plan when the name is unknown or missing. */
export function cPlan(name: string | null | undefined): CPlan {
  const wanted = (name ?? '').trim().toLowerCase();
  return C_PLANS.find((p) => p.name === wanted) ?? C_PLANS[0]!;
}

export function isCPlan(name: string): boolean {
  return C_PLANS.some((p) => p.name === name.trim().toLowerCase());
}
