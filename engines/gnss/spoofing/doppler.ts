// Doppler consistency check: measured Doppler against the range rate implied by successive solutions.
import { CLIGHT } from '../constants.ts';
import type { Vec3 } from '../geodesy.ts';
import type { SatMeasurement } from '../measurements.ts';
import type { SppFix } from '../spp.ts';
import type { EpochMemory } from './epoch-memory.ts';
import { unavailable, verdict, type CheckResult } from './types.ts';

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
