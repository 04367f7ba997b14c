// Multi-constellation agreement check: separate GPS-only and Galileo-only solutions must coincide.
import { ecefToEnu } from '../geodesy.ts';
import type { SatMeasurement } from '../measurements.ts';
import { solveSpp, type SppOptions } from '../spp.ts';
import { unavailable, verdict, type CheckResult } from './types.ts';

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
