// What the consistency checks remember of the previous epoch.
import type { SatMeasurement } from '../measurements.ts';
import type { SppFix } from '../spp.ts';

/** What the checks remember of the previous epoch. */
export interface EpochMemory {
  time: number;
  fix: SppFix;
  meas: Map<string, SatMeasurement>;
}
