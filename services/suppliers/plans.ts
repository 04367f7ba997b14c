/** suppliers plans: the spec's interface 2 table of limits per API key (CONTRACT: free, pro, enterprise). */
import type { PlanInfo } from '../../platform/service.ts';

export const SUPPLIER_PLANS: readonly PlanInfo[] = [{ name: 'free' }, { name: 'pro' }, { name: 'enterprise' }];

export interface SupplierPlan {
  name: 'free' | 'pro' | 'enterprise';
  requestsPerMinute: number;
  /** Jobs one key may submit per UTC day; null: unlimited. */
  jobsPerDay: number | null;
  maxQubits: number;
}

const PLANS: Record<SupplierPlan['name'], SupplierPlan> = {
  free: { name: 'free', requestsPerMinute: 10, jobsPerDay: 10, maxQubits: 20 },
  pro: { name: 'pro', requestsPerMinute: 60, jobsPerDay: 100, maxQubits: 50 },
  enterprise: { name: 'enterprise', requestsPerMinute: 300, jobsPerDay: null, maxQubits: 256 },
};

/** The plan by name in any letter case; a key without a suppliers plan gets the lowest. */
export function supplierPlan(name: string | null | undefined): SupplierPlan {
  const key = (name ?? 'free').toLowerCase() as SupplierPlan['name'];
  return PLANS[key] ?? PLANS.free;
}

export function allSupplierPlans(): SupplierPlan[] {
  return Object.values(PLANS);
}
