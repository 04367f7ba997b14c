// Solves a whole RINEX observation file epoch by epoch (SPP + RAIM) and measures it against the header's surveyed position.
import type { Constellation } from './constants.ts';
import { EphemerisStore } from './ephemeris/select.ts';
import type { NavData } from './ephemeris/types.ts';
import { ecefToEnu, ecefToGeodetic, sub } from './geodesy.ts';
import { prepareEpoch } from './measurements.ts';
import { solveWithRaim, type RaimOptions } from './raim.ts';
import type { ObsFile } from './rinex/obs.ts';
import type { SppOptions } from './spp.ts';
import { gpsToIso } from './time.ts';

const DEG = 180 / Math.PI;

/** One epoch in the shape of the `lattice gnss solve` contract. */
export type EpochReport =
  | {
      time: string;
      fix: true;
      latitude: number;
      longitude: number;
      altitude: number;
      clock_bias_m: number;
      pdop: number;
      hdop: number;
      vdop: number;
      satellites_used: number;
      residual_rms_m: number;
      horizontal_accuracy_m: number;
      vertical_accuracy_m: number;
      raim: RaimReport;
    }
  | { time: string; fix: false; reason: string; satellites_used: number; raim: RaimReport };

export interface RaimReport {
  fault_detected: boolean;
  excluded: string[];
  test_statistic: number | null;
  threshold: number | null;
}

export interface SolveSummary {
  marker: string;
  epochs: number;
  fixes: number;
  no_fix: number;
  faults_detected: number;
  exclusions: number;
  mean_satellites_used: number;
  constellations: Constellation[];
  /** Errors against the header's APPROX POSITION XYZ (the surveyed marker), when the header gives it. */
  reference?: { latitude: number; longitude: number; altitude: number };
  horizontal_rms_m?: number;
  vertical_rms_m?: number;
  max_horizontal_error_m?: number;
}

export interface SolveFileResult {
  epochs: EpochReport[];
  summary: SolveSummary;
}

/**
 * Solves every epoch of an observation file with the ephemerides of a navigation file.
 *
 * @example
 * const result = solveFile(parseObs(obsText), parseNav(navText));
 * console.log(result.summary.horizontal_rms_m);
 */
export function solveFile(obs: ObsFile, nav: NavData, spp: SppOptions = {}, raim: RaimOptions = {}): SolveFileResult {
  const store = new EphemerisStore(nav.ephemerides);
  const truth = obs.header.approxPosition;
  const truthGeo = truth ? ecefToGeodetic(truth) : undefined;
  const epochs: EpochReport[] = [];
  const constellations = new Set<Constellation>();
  let h2 = 0;
  let v2 = 0;
  let hMax = 0;
  let sats = 0;
  let faults = 0;
  let exclusions = 0;
  for (const ep of obs.epochs) {
    const { measurements } = prepareEpoch(ep, store);
    const r = solveWithRaim(ep.time, measurements, { iono: nav.iono, ...spp }, raim);
    const raimReport: RaimReport = {
      fault_detected: r.faultDetected,
      excluded: r.excluded,
      test_statistic: r.testStatistic === null ? null : round(r.testStatistic, 3),
      threshold: r.threshold === null ? null : round(r.threshold, 3),
    };
    if (r.faultDetected) faults++;
    exclusions += r.excluded.length;
    const s = r.solution;
    if (!s.fix) {
      epochs.push({ time: gpsToIso(ep.time), fix: false, reason: s.reason, satellites_used: 0, raim: raimReport });
      continue;
    }
    for (const res of s.residuals) constellations.add(res.constellation);
    sats += s.residuals.length;
    if (truth && truthGeo) {
      const e = ecefToEnu(sub(s.position, truth), truthGeo);
      const h = e[0] * e[0] + e[1] * e[1];
      h2 += h;
      v2 += e[2] * e[2];
      hMax = Math.max(hMax, Math.sqrt(h));
    }
    const clock = s.clockBias.GPS ?? Object.values(s.clockBias)[0] ?? 0;
    epochs.push({
      time: gpsToIso(ep.time),
      fix: true,
      latitude: round(s.geodetic.lat * DEG, 9),
      longitude: round(s.geodetic.lon * DEG, 9),
      altitude: round(s.geodetic.height, 3),
      clock_bias_m: round(clock, 3),
      pdop: round(s.dop.pdop, 3),
      hdop: round(s.dop.hdop, 3),
      vdop: round(s.dop.vdop, 3),
      satellites_used: s.residuals.length,
      residual_rms_m: round(Math.sqrt(s.residuals.reduce((a, x) => a + x.residual * x.residual, 0) / s.residuals.length), 3),
      horizontal_accuracy_m: round(Math.hypot(s.sigmaEnu[0], s.sigmaEnu[1]), 3),
      vertical_accuracy_m: round(s.sigmaEnu[2], 3),
      raim: raimReport,
    });
  }
  const fixes = epochs.filter((e) => e.fix).length;
  const summary: SolveSummary = {
    marker: obs.header.markerName,
    epochs: epochs.length,
    fixes,
    no_fix: epochs.length - fixes,
    faults_detected: faults,
    exclusions,
    mean_satellites_used: fixes ? round(sats / fixes, 2) : 0,
    constellations: [...constellations].sort(),
  };
  if (truthGeo && fixes) {
    summary.reference = { latitude: round(truthGeo.lat * DEG, 9), longitude: round(truthGeo.lon * DEG, 9), altitude: round(truthGeo.height, 3) };
    summary.horizontal_rms_m = round(Math.sqrt(h2 / fixes), 3);
    summary.vertical_rms_m = round(Math.sqrt(v2 / fixes), 3);
    summary.max_horizontal_error_m = round(hMax, 3);
  }
  return { epochs, summary };
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

