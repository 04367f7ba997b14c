// Carrier phase check: code minus carrier must change only by the ionospheric drift between epochs.
import { CLIGHT } from '../constants.ts';
import type { SatMeasurement } from '../measurements.ts';
import type { EpochMemory } from './epoch-memory.ts';
import { unavailable, verdict, type CheckResult } from './types.ts';

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
