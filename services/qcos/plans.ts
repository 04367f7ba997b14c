/** qcos plans (CONTRACT "Credits, plans and limits"; rate limits from the spec's interface 1 table). */
import type { PlanInfo } from '../../platform/service.ts';

export const QCOS_PLANS: readonly PlanInfo[] = [{ name: 'free' }, { name: 'pro' }, { name: 'hybrid' }, { name: 'enterprise' }];

export interface QcosPlan {
  name: string;
  /** null: unlimited. */
  quantumMinutes: number | null;
  simulationMinutes: number | null;
  optimizationCredits: number | null;
  /** Simulators; an emulated device's own size caps it too. */
  maxQubits: number;
  maxDepth: number | null;
  maxShots: number;
  concurrentJobs: number;
  /** Requests per minute and per day; null for enterprise's "custom" (unlimited unless configured). */
  requestsPerMinute: number | null;
  requestsPerDay: number | null;
  features: { multi_backend: boolean; chat_integration: string; custom_noise_models: boolean; priority_queue: boolean };
}

const PLANS: Record<string, QcosPlan> = {
  free: {
    name: 'free', quantumMinutes: 10, simulationMinutes: 60, optimizationCredits: 100, maxQubits: 20, maxDepth: 1000, maxShots: 10_000,
    concurrentJobs: 2, requestsPerMinute: 60, requestsPerDay: 1000,
    features: { multi_backend: false, chat_integration: 'none', custom_noise_models: false, priority_queue: false },
  },
  pro: {
    name: 'pro', quantumMinutes: 100, simulationMinutes: 600, optimizationCredits: 1000, maxQubits: 30, maxDepth: 10_000, maxShots: 100_000,
    concurrentJobs: 10, requestsPerMinute: 300, requestsPerDay: 10_000,
    features: { multi_backend: true, chat_integration: 'basic', custom_noise_models: true, priority_queue: false },
  },
  hybrid: {
    name: 'hybrid', quantumMinutes: 500, simulationMinutes: 3000, optimizationCredits: 5000, maxQubits: 30, maxDepth: 100_000, maxShots: 1_000_000,
    concurrentJobs: 25, requestsPerMinute: 600, requestsPerDay: 50_000,
    features: { multi_backend: true, chat_integration: 'full', custom_noise_models: true, priority_queue: true },
  },
  enterprise: {
    name: 'enterprise', quantumMinutes: null, simulationMinutes: null, optimizationCredits: null, maxQubits: 30, maxDepth: null, maxShots: 1_000_000,
    concurrentJobs: 100, requestsPerMinute: null, requestsPerDay: null,
    features: { multi_backend: true, chat_integration: 'full', custom_noise_models: true, priority_queue: true },
  },
};

/** The plan by name in any letter case; an account without a qcos plan gets the lowest. */
export function qcosPlan(name: string | null | undefined): QcosPlan {
  return PLANS[(name ?? 'free').toLowerCase()] ?? PLANS.free!;
}

/** Longest a single run may take (its minutes hold and wall-clock limit), in minutes. */
export const MAX_JOB_MINUTES = 5;

/** The calendar month (UTC) holding `now`: the billing period of every quota. */
export function billingPeriod(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}
