/** The monthly license allowance of variant C: its counter, and the 429 that names the way out. */
import { ApiError } from '../../platform/http/errors.ts';
import { monthPeriod } from '../../platform/identity/usage.ts';
import type { CPlan } from './plans.ts';

export function monthlyCounter(accountId: string, now: Date) {
  return { accountId, service: 'licensing-c', counter: 'licenses_generated', period: monthPeriod(now) };
}

/** The first instant of the next UTC month, when the allowance starts again. */
export function nextMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export function monthlyLimitReached(plan: CPlan, now: Date): ApiError {
  return new ApiError(
    429,
    'monthly_limit_reached',
    `Monthly license limit reached: the ${plan.name} plan allows ${plan.monthlyLimit} licenses per month. ` +
      `Upgrade your plan for a higher limit, or wait until next month (the count resets on ${nextMonth(now).toISOString().slice(0, 10)}).`,
  );
}
