// Clock consistency check: the receiver clock filter's normalised innovation.
import { chi2Quantile } from '../chi2.ts';
import type { ClockUpdate } from '../clock.ts';
import { unavailable, verdict, type CheckResult } from './types.ts';

/**
 * Clock consistency: the normalised innovation of the receiver clock filter, a chi-square with
 * one degree of freedom when the clock behaves as its oscillator class allows. A time push
 * steps it. Threshold: the 1e-6 quantile (23.9).
 */
export function clockConsistency(update: ClockUpdate | undefined): CheckResult {
  const threshold = Math.round(chi2Quantile(1e-6, 1) * 10) / 10;
  if (!update || update.innovationVariance === 0) return unavailable('clock_consistency', 'chi2', threshold, 'clock filter not yet initialised');
  return verdict('clock_consistency', update.normalizedInnovation, threshold, 'chi2', `clock innovation ${(update.innovation * 1e9).toFixed(1)} ns`);
}
