/**
 * The plan tables of the quantum services whose quotas another service reports too: core's
 * (interface 3) and the suppliers' (interface 2). Each service enforces its own; qcos's usage
 * page reads both to show a workspace what every quantum service allows it, so they live here
 * rather than in either service (services never import each other).
 */
import type { PlanInfo } from '../service.ts';

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

/** Suppliers plans: the spec's interface 2 table of limits per API key (CONTRACT: free, pro, enterprise). */
export const SUPPLIER_PLANS: readonly PlanInfo[] = [{ name: 'free' }, { name: 'pro' }, { name: 'enterprise' }];

export interface SupplierPlan {
  name: 'free' | 'pro' | 'enterprise';
  requestsPerMinute: number;
  /** Jobs one key may submit per UTC day; null: unlimited. */
  jobsPerDay: number | null;
  maxQubits: number;
}

const SUPPLIER_LIMITS: Record<SupplierPlan['name'], SupplierPlan> = {
  free: { name: 'free', requestsPerMinute: 10, jobsPerDay: 10, maxQubits: 20 },
  pro: { name: 'pro', requestsPerMinute: 60, jobsPerDay: 100, maxQubits: 50 },
  enterprise: { name: 'enterprise', requestsPerMinute: 300, jobsPerDay: null, maxQubits: 256 },
};

/** The plan by name in any letter case; a key without a suppliers plan gets the lowest. */
export function supplierPlan(name: string | null | undefined): SupplierPlan {
  const key = (name ?? 'free').toLowerCase() as SupplierPlan['name'];
  return SUPPLIER_LIMITS[key] ?? SUPPLIER_LIMITS.free;
}

export function allSupplierPlans(): SupplierPlan[] {
  return Object.values(SUPPLIER_LIMITS);
}
