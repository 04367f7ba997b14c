/** The monthly license allowance of variant B: the counter key, and the 429 that names the way out. */
import { ApiError } from '../../../platform/http/errors.ts';
import { monthPeriod } from '../../../platform/identity/usage.ts';
import type { LicensingPlan } from '../plans.ts';

export function monthlyCounter(accountId: string, now: Date) {
  return { accountId, service: 'licensing', counter: 'b_licenses_generated', period: monthPeriod(now) };
}

export function monthlyLimitReached(plan: LicensingPlan): ApiError {
  return new ApiError(
    429,
    'monthly_limit_reached',
    `Monthly license limit reached: the ${plan.name} plan allows ${plan.licenses_per_month} licenses per month. ` +
      'Upgrade your plan or wait until the next month.',
  );
}
