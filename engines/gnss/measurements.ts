// Pairs one epoch's observations with broadcast ephemeris: transmission time, satellite state, clock and group delay.
import { CLIGHT, constellationOf, FREQ_G1_BASE, FREQ_G1_STEP, FREQ_L1, type Constellation } from './constants.ts';
import type { Vec3 } from './geodesy.ts';
import type { ObsEpoch, SatObservation } from './rinex/obs.ts';
import { EphemerisStore, satelliteClock, satelliteState } from './ephemeris/select.ts';

/** One satellite ready for positioning: measurements plus the satellite's state at transmission. */
export interface SatMeasurement {
  sat: string;
  constellation: Constellation;
  /** L1 pseudorange corrected for the broadcast group delay (TGD/BGD), metres. */
  pseudorange: number;
  /** Carrier phase (cycles), Doppler (Hz), C/N0 (dB-Hz) where the receiver reported them. */
  carrierPhase?: number;
  doppler?: number;
  cn0?: number;
  /** Carrier frequency of the signal, Hz (GLONASS FDMA channels differ). */
  frequency: number;
  /** Satellite position and velocity at transmission, ECEF at transmission time. */
  satPos: Vec3;
  satVel: Vec3;
  /** Satellite clock offset including relativity (s) and its drift (s/s). */
  satClock: number;
  satClockDrift: number;
  /** Variance of the broadcast orbit and clock error (from URA/SISA), m^2. */
  ephemerisVariance: number;
  /** Share of the code noise variance left after carrier smoothing (absent: raw code, 1). */
  codeNoiseScale?: number;
}

/** URA index values of IS-GPS-200 (m): a broadcast accuracy rounds up to the next of these. */
const URA_VALUES = [2.4, 3.4, 4.85, 6.85, 9.65, 13.65, 24, 48, 96, 192, 384, 768, 1536, 3072, 6144];

function ephemerisVariance(accuracy: number, sat: string): number {
  if (sat[0] === 'R') return 5 * 5;
  if (sat[0] === 'E') return accuracy > 0 && accuracy < 100 ? accuracy * accuracy : 36;
  const ura = URA_VALUES.find((v) => v >= accuracy) ?? 6144;
  return ura * ura;
}

/**
 * Builds the measurements of an epoch that have a pseudorange and a valid, healthy ephemeris.
 * Satellites without either are left out and reported in `missing` with the reason.
 */
export function prepareEpoch(
  epoch: ObsEpoch,
  store: EphemerisStore,
): { measurements: SatMeasurement[]; missing: { sat: string; reason: string }[] } {
  const measurements: SatMeasurement[] = [];
  const missing: { sat: string; reason: string }[] = [];
  for (const o of epoch.sats) {
    const m = prepareOne(o, epoch.time, store);
    if (typeof m === 'string') missing.push({ sat: o.sat, reason: m });
    else measurements.push(m);
  }
  return { measurements, missing };
}

function prepareOne(o: SatObservation, time: number, store: EphemerisStore): SatMeasurement | string {
  const constellation = constellationOf(o.sat);
  if (!constellation || (constellation !== 'GPS' && constellation !== 'Galileo' && constellation !== 'GLONASS')) return 'unsupported constellation';
  const p = o.pseudorange;
  if (p === undefined || !(p > 1e7 && p < 5e7)) return 'no usable pseudorange';
  const eph = store.select(o.sat, time);
  if (!eph) return 'no valid ephemeris';
  // Transmission time: the receive tag less the travel time, corrected by the satellite clock.
  let t = time - p / CLIGHT;
  t -= satelliteClock(eph, t);
  const state = satelliteState(eph, t);
  const tgd = eph.kind === 'kepler' ? eph.tgd : 0;
  const frequency = eph.kind === 'glonass' ? FREQ_G1_BASE + FREQ_G1_STEP * eph.frequencyNumber : FREQ_L1;
  return {
    sat: o.sat,
    constellation,
    pseudorange: p - CLIGHT * tgd,
    carrierPhase: o.carrierPhase,
    doppler: o.doppler,
    cn0: o.cn0,
    frequency,
    satPos: state.pos,
    satVel: state.vel,
    satClock: state.clock,
    satClockDrift: state.clockDrift,
    ephemerisVariance: ephemerisVariance(eph.kind === 'kepler' ? eph.accuracy : 0, o.sat),
  };
}
