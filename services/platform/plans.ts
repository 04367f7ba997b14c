/**
 * Platform plans (CONTRACT "Credits, plans and limits"): `free` runs simulators only, at most
 * 10,000 shots a job, and costs nothing (billing_mode FREE); `prepaid` runs everything and
 * holds the worst case on the account's balance (PREPAID); `paygo` is approved invoicing: the
 * operator gives an account the plan, its usage is recorded and invoiced monthly, no hold
 * (PAYGO).
 */
import type { PlanInfo } from '../../platform/service.ts';

export const PLATFORM_PLANS: readonly PlanInfo[] = [{ name: 'free' }, { name: 'prepaid' }, { name: 'paygo' }];

export type BillingMode = 'FREE' | 'PREPAID' | 'PAYGO';

export interface PlatformPlan {
  name: 'free' | 'prepaid' | 'paygo';
  billingMode: BillingMode;
  /** Only simulators (no emulated devices, no CPU or GPU jobs). */
  simulatorsOnly: boolean;
  /** Most shots per job; null: the backend's own limit. */
  maxShots: number | null;
  /** Holds the worst case on the balance before the job runs. */
  holds: boolean;
}

const PLANS: Record<string, PlatformPlan> = {
  free: { name: 'free', billingMode: 'FREE', simulatorsOnly: true, maxShots: 10_000, holds: false },
  prepaid: { name: 'prepaid', billingMode: 'PREPAID', simulatorsOnly: false, maxShots: null, holds: true },
  paygo: { name: 'paygo', billingMode: 'PAYGO', simulatorsOnly: false, maxShots: null, holds: false },
};

/** The plan by name in any letter case; a key without a platform plan gets the lowest. */
export function platformPlan(name: string | null | undefined): PlatformPlan {
  return PLANS[(name ?? 'free').toLowerCase()] ?? PLANS.free!;
}
