// Measurement-consistency spoofing checks: Doppler against the solution, code against carrier, clock innovations, constellations.
import { CLIGHT } from '../constants.ts';
import { ecefToEnu, type Vec3 } from '../geodesy.ts';
import type { SatMeasurement } from '../measurements.ts';
import { solveSpp, type SppFix, type SppOptions } from '../spp.ts';
import type { ClockUpdate } from '../clock.ts';
import { chi2Quantile } from '../chi2.ts';
import { unavailable, verdict, type CheckResult } from './types.ts';

/** What the checks remember of the previous epoch. */
export interface EpochMemory {
  time: number;
  fix: SppFix;
  meas: Map<string, SatMeasurement>;
}

/**
 * Doppler consistency: each satellite's measured Doppler against the range rate the position
 * solutions imply, ((range + clock) now - (range + clock) before) / dt, with the satellite
 * clock drift removed. A spoofer that moves the code (and so the solution) without the matching
 * carrier Doppler, or the reverse, shows up as a common offset. Statistic: mean absolute
 * residual in Hz; threshold 25 Hz (about 5 m/s), several times the clean-data spread at 1 Hz.
 */
export function dopplerConsistency(prev: EpochMemory | undefined, time: number, fix: SppFix, meas: Map<string, SatMeasurement>, thresholdHz = 25): CheckResult & { meanResidualHz: number } {
  const none = { ...unavailable('doppler_consistency', 'Hz', thresholdHz, 'needs two consecutive fixes with Doppler'), meanResidualHz: 0 };
  if (!prev) return none;
  const dt = time - prev.time;
  if (!(dt > 0 && dt <= 5)) return none;
  const clk = (f: SppFix) => f.clockBias.GPS ?? Object.values(f.clockBias)[0] ?? 0;
  const residuals: number[] = [];
  for (const [sat, m] of meas) {
    const p = prev.meas.get(sat);
    if (!p || m.doppler === undefined || p.doppler === undefined) continue;
    const range = (s: Vec3, r: Vec3) => Math.hypot(s[0] - r[0], s[1] - r[1], s[2] - r[2]);
    const predictedRate =
      (range(m.satPos, fix.position) + clk(fix) - CLIGHT * m.satClock - (range(p.satPos, prev.fix.position) + clk(prev.fix) - CLIGHT * p.satClock)) / dt;
    const lambda = CLIGHT / m.frequency;
    const measuredRate = (-lambda * (m.doppler + p.doppler)) / 2;
    residuals.push((measuredRate - predictedRate) / lambda);
  }
  if (residuals.length < 4) return none;
  const meanAbs = residuals.reduce((a, r) => a + Math.abs(r), 0) / residuals.length;
  return { ...verdict('doppler_consistency', meanAbs, thresholdHz, 'Hz', `mean |Doppler - solution range rate| over ${residuals.length} satellites`), meanResidualHz: meanAbs };
}

/**
 * Carrier phase against pseudorange: code minus carrier changes only by twice the ionospheric
 * drift (centimetres per second) while both track the same signal. A code step without a
 * carrier step (a spoofer pulling the code) moves it by metres on every satellite. Statistic:
 * median absolute change of code-minus-carrier between epochs, metres (the median ignores one
 * satellite's cycle slip); threshold 6 m.
 */
export function carrierPhaseCheck(prev: EpochMemory | undefined, time: number, meas: Map<string, SatMeasurement>, thresholdM = 6): CheckResult {
  const none = unavailable('carrier_phase', 'm', thresholdM, 'needs carrier phase on four satellites in consecutive epochs');
  if (!prev || !(time - prev.time > 0 && time - prev.time <= 5)) return none;
  const changes: number[] = [];
  for (const [sat, m] of meas) {
    const p = prev.meas.get(sat);
    if (!p || m.carrierPhase === undefined || p.carrierPhase === undefined) continue;
    const lambda = CLIGHT / m.frequency;
    changes.push(Math.abs(m.pseudorange - lambda * m.carrierPhase - (p.pseudorange - lambda * p.carrierPhase)));
  }
  if (changes.length < 4) return none;
  changes.sort((a, b) => a - b);
  const median = changes.length % 2 ? changes[(changes.length - 1) / 2] : (changes[changes.length / 2 - 1] + changes[changes.length / 2]) / 2;
  return verdict('carrier_phase', median, thresholdM, 'm', `median code-minus-carrier change over ${changes.length} satellites`);
}

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

/**
 * Multi-constellation agreement: separate GPS-only and Galileo-only solutions, each from at
 * least five satellites, must agree within their combined uncertainty. Statistic: horizontal
 * distance between them over 5 sigma of the difference (floor 10 m), so the threshold is 1.
 */
export function multiConstellation(time: number, meas: SatMeasurement[], options: SppOptions): CheckResult & { deltaM: number | null } {
  const gps = meas.filter((m) => m.constellation === 'GPS');
  const gal = meas.filter((m) => m.constellation === 'Galileo');
  const none = { ...unavailable('multi_constellation', 'ratio', 1, `needs 5 GPS and 5 Galileo satellites (have ${gps.length} and ${gal.length})`), deltaM: null };
  if (gps.length < 5 || gal.length < 5) return none;
  const a = solveSpp(time, gps, options);
  const b = solveSpp(time, gal, options);
  if (!a.fix || !b.fix) return none;
  const d = ecefToEnu([a.position[0] - b.position[0], a.position[1] - b.position[1], a.position[2] - b.position[2]], a.geodetic);
  const delta = Math.hypot(d[0], d[1]);
  const sigma = Math.hypot(a.sigmaEnu[0], a.sigmaEnu[1], b.sigmaEnu[0], b.sigmaEnu[1]);
  const limit = Math.max(10, 5 * sigma);
  return { ...verdict('multi_constellation', delta / limit, 1, 'ratio', `GPS-only and Galileo-only positions ${delta.toFixed(1)} m apart (limit ${limit.toFixed(1)} m)`), deltaM: delta };
}
