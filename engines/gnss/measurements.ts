// Pairs one epoch's observations with broadcast ephemeris: transmission time, satellite state, clock and group delay.
import { CLIGHT, constellationOf, FREQ_G1_BASE, FREQ_G1_STEP, FREQ_L1, FREQ_L2, type Constellation } from './constants.ts';
import type { Vec3 } from './geodesy.ts';
import type { ObsEpoch, SatObservation } from './rinex/obs.ts';
import { EphemerisStore, satelliteClock, satelliteState } from './ephemeris/select.ts';

/** One satellite ready for positioning: measurements plus the satellite's state at transmission. */
export interface SatMeasurement {
  sat: string;
  constellation: Constellation;
  /**
   * Pseudorange, metres: the L1 code corrected for the broadcast group delay (TGD/BGD), or,
   * with `ionoFree`, the ionosphere-free combination of two codes (no group delay: the
   * broadcast clock refers to that combination).
   */
  pseudorange: number;
  /**
   * Set when `pseudorange` is the dual-frequency ionosphere-free combination: no ionosphere
   * model applies, and its white noise is the single code's times `ionoFree.noiseFactor`
   * (variance). `codes` names the pair.
   */
  ionoFree?: { noiseFactor: number; codes: string };
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
 * How the first-order ionosphere is removed. `broadcast` (the default): the L1 code and the
 * broadcast (Klobuchar) model for every satellite. `dual-frequency`: each satellite whose
 * receiver tracks the second code its broadcast clock's combination is defined with (GPS L2
 * P(Y)) uses the ionosphere-free code combination; the others fall back to the L1 code with the
 * Klobuchar model. On the fixture stations the dual-frequency path is the less accurate one (its
 * positions sit further from the surveyed markers, as RTKLIB's own dual-frequency solution does;
 * README), so it is an option, not the default.
 */
export type IonosphereMode = 'dual-frequency' | 'broadcast';

export interface PrepareOptions {
  ionosphere?: IonosphereMode;
}

/**
 * Builds the measurements of an epoch that have a pseudorange and a valid, healthy ephemeris.
 * Satellites without either are left out and reported in `missing` with the reason.
 */
export function prepareEpoch(
  epoch: ObsEpoch,
  store: EphemerisStore,
  options: PrepareOptions = {},
): { measurements: SatMeasurement[]; missing: { sat: string; reason: string }[] } {
  const measurements: SatMeasurement[] = [];
  const missing: { sat: string; reason: string }[] = [];
  const dual = options.ionosphere === 'dual-frequency';
  for (const o of epoch.sats) {
    const m = prepareOne(o, epoch.time, store, dual);
    if (typeof m === 'string') missing.push({ sat: o.sat, reason: m });
    else measurements.push(m);
  }
  return { measurements, missing };
}

/**
 * The ionosphere-free code of a satellite, or undefined where its data cannot give one that
 * the broadcast clock refers to. GPS LNAV clocks refer to the L1/L2 P(Y) combination
 * (IS-GPS-200 20.3.3.3.3.3: the dual-frequency user applies no TGD); the L1 code is P1 where
 * the receiver reports it, else C/A (whose P1-C1 bias the LNAV message does not carry). L5 with
 * LNAV clocks needs the CNAV inter-signal corrections, Galileo E1/E5a or E5b the matching
 * navigation message's clock, GLONASS its inter-channel biases: those stay single-frequency.
 */
export function ionoFreeCode(o: SatObservation): { pseudorange: number; noiseFactor: number; codes: string } | undefined {
  if (o.sat[0] !== 'G' || o.band2 !== '2' || o.pseudorange2 === undefined || o.pseudorange === undefined) return undefined;
  const p1 = o.pseudorangeP1 ?? o.pseudorange;
  const p2 = o.pseudorange2;
  // A second code tens of metres from the first is a tracking error, not ionosphere (at most ~30 m on L2 in a storm).
  if (!(Math.abs(p2 - p1) < 60)) return undefined;
  const gamma = (FREQ_L1 / FREQ_L2) ** 2;
  return {
    pseudorange: (gamma * p1 - p2) / (gamma - 1),
    // Equal white noise on both codes: (gamma^2 + 1) / (gamma - 1)^2 = 8.87 in variance (3x in sigma, RTKLIB's factor too).
    noiseFactor: (gamma * gamma + 1) / ((gamma - 1) * (gamma - 1)),
    codes: `${o.pseudorangeP1 !== undefined ? 'P1' : (o.code ?? 'C1')}/${o.code2 ?? 'P2'}`,
  };
}

function prepareOne(o: SatObservation, time: number, store: EphemerisStore, dual: boolean): SatMeasurement | string {
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
  const iflc = dual ? ionoFreeCode(o) : undefined;
  return {
    sat: o.sat,
    constellation,
    pseudorange: iflc ? iflc.pseudorange : p - CLIGHT * tgd,
    ...(iflc ? { ionoFree: { noiseFactor: iflc.noiseFactor, codes: iflc.codes } } : {}),
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
