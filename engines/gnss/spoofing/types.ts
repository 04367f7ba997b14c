// Shared shapes of the spoofing and interference checks.

/** Check names of the positioning spec, plus the signal power check behind its `signal_power` analysis. */
export type CheckType = 'doppler_consistency' | 'multi_constellation' | 'carrier_phase' | 'clock_consistency' | 'ml_anomaly' | 'signal_power';

/**
 * One check's verdict. `statistic` is the measured quantity in `unit` and `threshold` the level
 * above which it warns. `score` is a consistency score in [0, 1]: 2^(-statistic/threshold),
 * so 1 is perfectly consistent and 0.5 is the warning threshold.
 */
export interface CheckResult {
  type: CheckType;
  result: 'pass' | 'warning';
  score: number;
  statistic: number;
  threshold: number;
  unit: string;
  detail: string;
  /** False when the check could not run this epoch (too few measurements); it then passes. */
  available: boolean;
}

export function verdict(type: CheckType, statistic: number, threshold: number, unit: string, detail: string): CheckResult {
  const ratio = Math.max(0, statistic) / threshold;
  return {
    type,
    result: ratio > 1 ? 'warning' : 'pass',
    score: Math.round(2 ** -ratio * 1000) / 1000,
    statistic: Math.round(statistic * 1000) / 1000,
    threshold,
    unit,
    detail,
    available: true,
  };
}

export function unavailable(type: CheckType, unit: string, threshold: number, detail: string): CheckResult {
  return { type, result: 'pass', score: 1, statistic: 0, threshold, unit, detail, available: false };
}
