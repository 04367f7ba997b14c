/** Variant B plans (the spec's table); Enterprise is unlimited, listed as 999999999. */
export interface LicensingPlan {
  name: 'Free' | 'Startup' | 'Business' | 'Enterprise';
  price_monthly: string;
  licenses_per_month: number;
  features: string[];
}

export const UNLIMITED = 999_999_999;

export const LICENSING_PLANS: readonly LicensingPlan[] = [
  { name: 'Free', price_monthly: '0.00', licenses_per_month: 100, features: ['ML-DSA-65 signatures', 'Revocation list', 'Community support'] },
  {
    name: 'Startup',
    price_monthly: '49.00',
    licenses_per_month: 10_000,
    features: ['ML-DSA-65 signatures', 'Revocation list', 'Quantum-derived signatures', 'Email support'],
  },
  {
    name: 'Business',
    price_monthly: '299.00',
    licenses_per_month: 100_000,
    features: ['ML-DSA-65 and ML-DSA-87 signatures', 'Revocation list', 'Quantum-derived signatures', 'KMS signing', 'Priority support'],
  },
  {
    name: 'Enterprise',
    price_monthly: '1499.00',
    licenses_per_month: UNLIMITED,
    features: ['All signature algorithms', 'Unlimited licenses', 'Quantum-derived signatures', 'KMS signing', 'Dedicated support'],
  },
];

export function licensingPlan(name: string | null): LicensingPlan {
  const wanted = (name ?? '').toLowerCase();
  return LICENSING_PLANS.find((p) => p.name.toLowerCase() === wanted) ?? LICENSING_PLANS[0]!;
}
