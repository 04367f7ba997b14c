// Receiver autonomous integrity monitoring: a chi-square test on the weighted residuals, then fault detection and exclusion.
import { chi2Quantile } from './chi2.ts';
import type { SatMeasurement } from './measurements.ts';
import { solveSpp, type SppFix, type SppOptions, type SppResult } from './spp.ts';

export interface RaimOptions {
  /** Probability of false alarm per epoch for the chi-square test (default 1e-5). */
  pfa?: number;
  /** Most satellites excluded in one epoch (default 2). */
  maxExclusions?: number;
}

export interface RaimResult {
  /** The solution after exclusion (or the all-in-view one when nothing was excluded). */
  solution: SppResult;
  /** Whether the test could run: at least one redundant measurement. */
  available: boolean;
  faultDetected: boolean;
  /** Satellites left out by fault exclusion, e.g. ['G19']. */
  excluded: string[];
  /** Test statistic and threshold of the all-in-view solution (null when RAIM is unavailable). */
  testStatistic: number | null;
  threshold: number | null;
  /** True when a fault was detected and no exclusion restored a consistent solution. */
  unresolved: boolean;
}

const thresholdCache = new Map<string, number>();

/** Chi-square threshold for a false-alarm probability and degrees of freedom (memoised). */
export function raimThreshold(pfa: number, dof: number): number {
  const key = `${pfa}:${dof}`;
  let t = thresholdCache.get(key);
  if (t === undefined) {
    t = chi2Quantile(pfa, dof);
    thresholdCache.set(key, t);
  }
  return t;
}

function passes(s: SppFix, pfa: number): boolean {
  return s.dof < 1 || s.sse <= raimThreshold(pfa, s.dof);
}

/**
 * Solves an epoch with RAIM. A fault is declared when the weighted sum of squared residuals
 * exceeds the chi-square threshold. Exclusion tries every subset with one satellite fewer and
 * keeps the one whose own test passes with the smallest statistic relative to its threshold;
 * it needs two or more degrees of freedom, so that the remaining set can still be tested.
 */
export function solveWithRaim(time: number, meas: SatMeasurement[], spp: SppOptions = {}, options: RaimOptions = {}): RaimResult {
  const pfa = options.pfa ?? 1e-5;
  const maxExclusions = options.maxExclusions ?? 2;
  const first = solveSpp(time, meas, spp);
  if (!first.fix || first.dof < 1) {
    return { solution: first, available: false, faultDetected: false, excluded: [], testStatistic: first.fix ? first.sse : null, threshold: null, unresolved: false };
  }
  const threshold = raimThreshold(pfa, first.dof);
  const result: RaimResult = {
    solution: first,
    available: true,
    faultDetected: first.sse > threshold,
    excluded: [],
    testStatistic: first.sse,
    threshold,
    unresolved: false,
  };
  if (!result.faultDetected) return result;
  const excluded = new Set(spp.exclude ?? []);
  let current: SppFix = first;
  while (!passes(current, pfa)) {
    if (excluded.size - (spp.exclude?.size ?? 0) >= maxExclusions || current.dof < 2) {
      result.unresolved = true;
      break;
    }
    let best: { sat: string; sol: SppFix; ratio: number } | undefined;
    for (const r of current.residuals) {
      const trial = new Set(excluded).add(r.sat);
      const sol = solveSpp(time, meas, { ...spp, exclude: trial });
      if (!sol.fix || sol.dof < 1) continue;
      const ratio = sol.sse / raimThreshold(pfa, sol.dof);
      if (!best || ratio < best.ratio) best = { sat: r.sat, sol, ratio };
    }
    if (!best) {
      result.unresolved = true;
      break;
    }
    excluded.add(best.sat);
    result.excluded.push(best.sat);
    current = best.sol;
  }
  result.solution = result.unresolved ? { fix: false, time, reason: 'integrity fault detected and not isolated', satellitesAvailable: meas.length } : current;
  return result;
}
