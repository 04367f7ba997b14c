// Solves a whole RINEX observation file (RAIM on each epoch, then the Kalman filter or single-point) and measures it against the header's surveyed position.
import { constellationOf, type Constellation } from './constants.ts';
import { EphemerisStore } from './ephemeris/select.ts';
import type { NavData } from './ephemeris/types.ts';
import { ecefToEnu, ecefToGeodetic, enuMatrix, sub, type Vec3 } from './geodesy.ts';
import type { KalmanFix } from './kalman.ts';
import { invert } from './linalg.ts';
import { prepareEpoch, type IonosphereMode } from './measurements.ts';
import { FilteredPositioning, type PositioningOptions } from './positioning.ts';
import { solveWithRaim, type RaimOptions } from './raim.ts';
import type { ObsFile } from './rinex/obs.ts';
import type { SppFix, SppOptions } from './spp.ts';
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
      /** Null on an epoch the filter solved with too few satellites for a single-point geometry. */
      pdop: number | null;
      hdop: number | null;
      vdop: number | null;
      satellites_used: number;
      residual_rms_m: number;
      horizontal_accuracy_m: number;
      vertical_accuracy_m: number;
      raim: RaimReport;
      /** Set on the epoch the Kalman filter started or restarted from the single-point fix, with why. */
      filter_initialised?: string;
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
  /** The solver: `kalman` with its motion model (`static` or `moving`), or `spp`. */
  positioning: { mode: 'kalman' | 'spp'; dynamics?: 'static' | 'moving'; smoothing?: boolean; combined?: boolean; ionosphere: IonosphereMode };
  /** Kalman filter restarts after the cold start (measurements inconsistent with the filter). */
  filter_restarts?: number;
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
 * Solves every epoch of an observation file with the ephemerides of a navigation file. By
 * default the carrier-smoothed pseudoranges go through the Kalman filter with the `moving`
 * model (safe for any receiver; a fixed antenna says `dynamics: 'static'`); `mode: 'spp'`
 * solves each epoch on its own. RAIM runs on each epoch's raw pseudoranges either way, and the
 * satellites it excludes are left out of the filter in the same epoch.
 *
 * @example
 * const result = solveFile(parseObs(obsText), parseNav(navText), {}, {}, { mode: 'kalman', dynamics: 'static' });
 * console.log(result.summary.horizontal_rms_m);
 */
export function solveFile(obs: ObsFile, nav: NavData, spp: SppOptions = {}, raim: RaimOptions = {}, positioning: PositioningOptions = {}): SolveFileResult {
  const mode = positioning.mode ?? 'kalman';
  const dynamics = positioning.dynamics ?? 'moving';
  const ionosphere = positioning.ionosphere ?? 'broadcast';
  const store = new EphemerisStore(nav.ephemerides);
  const filtered =
    mode === 'kalman' ? new FilteredPositioning({ ...positioning, dynamics, iono: nav.iono, elevationMaskDeg: spp.elevationMaskDeg ?? positioning.elevationMaskDeg }) : undefined;
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
  // Pass 1: RAIM on every epoch, and the forward filter.
  const passes = obs.epochs.map((ep) => {
    const { measurements } = prepareEpoch(ep, store, { ionosphere });
    const r = solveWithRaim(ep.time, measurements, { iono: nav.iono, ...spp }, raim);
    return { ep, measurements, r, kf: filtered?.step(ep, store, measurements, r).fix };
  });
  if (filtered && positioning.combined) {
    // Pass 2: the same filter backwards over the file, combined with the forward one per epoch.
    const backward = new FilteredPositioning({ ...positioning, dynamics, iono: nav.iono, elevationMaskDeg: spp.elevationMaskDeg ?? positioning.elevationMaskDeg, backward: true });
    for (let k = passes.length - 1; k >= 0; k--) {
      const p = passes[k];
      const b = backward.step(p.ep, store, p.measurements, p.r).fix;
      if (p.kf && b) p.kf = combine(p.kf, b);
    }
  }
  for (const { ep, r, kf } of passes) {
    const raimReport: RaimReport = {
      fault_detected: r.faultDetected,
      excluded: r.excluded,
      test_statistic: r.testStatistic === null ? null : round(r.testStatistic, 3),
      threshold: r.threshold === null ? null : round(r.threshold, 3),
    };
    if (r.faultDetected) faults++;
    exclusions += r.excluded.length;
    const s = r.solution;
    if (!s.fix && !kf) {
      epochs.push({ time: gpsToIso(ep.time), fix: false, reason: s.fix ? 'no fix' : s.reason, satellites_used: 0, raim: raimReport });
      continue;
    }
    // The reported position: the filter's when it runs, else the epoch's own least squares.
    const position = kf ? kf.position : (s as SppFix).position;
    const geodetic = kf ? kf.geodetic : (s as SppFix).geodetic;
    const sigma = kf ? kf.sigmaEnu : (s as SppFix).sigmaEnu;
    const clockBias = kf ? kf.clockBias : (s as SppFix).clockBias;
    const residuals = kf ? kf.residuals.filter((x) => kf.used.includes(x.sat)) : (s as SppFix).residuals;
    const used = kf ? kf.used : (s as SppFix).residuals.map((x) => x.sat);
    for (const sat of used) {
      const c = constellationOf(sat);
      if (c) constellations.add(c);
    }
    sats += used.length;
    if (truth && truthGeo) {
      const e = ecefToEnu(sub(position, truth), truthGeo);
      const h = e[0] * e[0] + e[1] * e[1];
      h2 += h;
      v2 += e[2] * e[2];
      hMax = Math.max(hMax, Math.sqrt(h));
    }
    const clock = clockBias.GPS ?? Object.values(clockBias)[0] ?? 0;
    const dop = s.fix ? s.dop : undefined;
    const report: EpochReport = {
      time: gpsToIso(ep.time),
      fix: true,
      latitude: round(geodetic.lat * DEG, 9),
      longitude: round(geodetic.lon * DEG, 9),
      altitude: round(geodetic.height, 3),
      clock_bias_m: round(clock, 3),
      // Geometry of this epoch's satellites, from its single-point solution.
      pdop: dop ? round(dop.pdop, 3) : null,
      hdop: dop ? round(dop.hdop, 3) : null,
      vdop: dop ? round(dop.vdop, 3) : null,
      satellites_used: used.length,
      residual_rms_m: residuals.length ? round(Math.sqrt(residuals.reduce((a, x) => a + x.residual * x.residual, 0) / residuals.length), 3) : 0,
      horizontal_accuracy_m: round(Math.hypot(sigma[0], sigma[1]), 3),
      vertical_accuracy_m: round(sigma[2], 3),
      raim: raimReport,
    };
    if (kf?.initialised) report.filter_initialised = kf.initialised;
    epochs.push(report);
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
    positioning:
      mode === 'kalman'
        ? { mode, dynamics, smoothing: positioning.smoothing !== false, combined: positioning.combined === true, ionosphere }
        : { mode, ionosphere },
  };
  if (filtered) summary.filter_restarts = filtered.filter.restarts;
  if (truthGeo && fixes) {
    summary.reference = { latitude: round(truthGeo.lat * DEG, 9), longitude: round(truthGeo.lon * DEG, 9), altitude: round(truthGeo.height, 3) };
    summary.horizontal_rms_m = round(Math.sqrt(h2 / fixes), 3);
    summary.vertical_rms_m = round(Math.sqrt(v2 / fixes), 3);
    summary.max_horizontal_error_m = round(hMax, 3);
  }
  return { epochs, summary };
}

/** Forward and backward filter solutions of one epoch combined by their position covariances. */
function combine(f: KalmanFix, b: KalmanFix): KalmanFix {
  const fi = invert(f.covariance);
  const bi = invert(b.covariance);
  if (!fi || !bi) return f;
  const info = fi.map((row, i) => row.map((v, j) => v + bi[i][j]));
  const cov = invert(info);
  if (!cov) return f;
  const rhs = [0, 1, 2].map((i) => [0, 1, 2].reduce((a, j) => a + fi[i][j] * f.position[j] + bi[i][j] * b.position[j], 0));
  const position = [0, 1, 2].map((i) => [0, 1, 2].reduce((a, j) => a + cov[i][j] * rhs[j], 0)) as Vec3;
  const geodetic = ecefToGeodetic(position);
  const e = enuMatrix(geodetic);
  const sigmaEnu = e.map((row) => Math.sqrt(Math.max(0, [0, 1, 2].reduce((a, i) => a + [0, 1, 2].reduce((c, j) => c + row[i] * cov[i][j] * row[j], 0), 0)))) as Vec3;
  return { ...f, position, geodetic, sigmaEnu, covariance: cov };
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

