// Single-point positioning: iterated weighted least squares with one receiver clock per constellation, DOPs and accuracy.
import { CLIGHT, OMEGA_E, type Constellation } from './constants.ts';
import { azEl, ecefToEnu, ecefToGeodetic, norm, RAD, type Geodetic, type Vec3 } from './geodesy.ts';
import { ionoScale, klobuchar, saastamoinen, tropoMapping } from './atmosphere.ts';
import type { IonoCoefficients } from './ephemeris/types.ts';
import { invert, weightedLeastSquares, type Matrix } from './linalg.ts';
import type { SatMeasurement } from './measurements.ts';
import { gpsWeekTow } from './time.ts';

export interface SppOptions {
  /** Satellites below this elevation are not used, degrees (default 10). */
  elevationMaskDeg?: number;
  iono?: IonoCoefficients;
  /** Satellites to leave out (RAIM exclusion). */
  exclude?: ReadonlySet<string>;
  /** Starting point; the Earth's centre when absent (no prior knowledge is needed). */
  initial?: Vec3;
}

export interface SatResidual {
  sat: string;
  constellation: Constellation;
  az: number;
  el: number;
  /** Measured minus modelled pseudorange after the final iteration, metres. */
  residual: number;
  /** Standard deviation the weighting assumed for this measurement, metres. */
  sigma: number;
  ionoDelay: number;
  tropoDelay: number;
  /** Geometric range (with the Earth-rotation term) to the satellite, metres. */
  range: number;
}

export interface Dop {
  gdop: number;
  pdop: number;
  hdop: number;
  vdop: number;
  tdop: number;
}

export interface SppFix {
  fix: true;
  time: number;
  position: Vec3;
  geodetic: Geodetic;
  /** Receiver clock bias per constellation, metres (c times seconds). */
  clockBias: Partial<Record<Constellation, number>>;
  residuals: SatResidual[];
  dop: Dop;
  /** One-sigma east, north, up errors from the weighted covariance, metres. */
  sigmaEnu: Vec3;
  /** Sum of squared residuals divided by their variances (the RAIM test statistic). */
  sse: number;
  /** Redundancy: measurements minus unknowns. */
  dof: number;
  /** Cofactor matrix of the unknowns (x, y, z, clocks...) in the weighted solution. */
  covariance: Matrix;
  iterations: number;
}

export interface SppNoFix {
  fix: false;
  time: number;
  reason: string;
  satellitesAvailable: number;
}

export type SppResult = SppFix | SppNoFix;

/**
 * Pseudorange error variance (m^2) used for weighting and for the RAIM test: receiver noise
 * and multipath growing at low elevation, broadcast orbit/clock error (a share of the URA),
 * and the residual error of the ionosphere (a tenth of the Klobuchar delay) and troposphere
 * (RTCA DO-229's 0.12 m at the zenith, mapped) models. The receiver-noise scale was calibrated
 * on the fixture stations so that the weighted sum of squared residuals per degree of freedom
 * is about 1: a chi-square test on it then means what it says.
 */
export function pseudorangeVariance(el: number, m: SatMeasurement, ionoDelay: number, noiseScale = 1): number {
  const sinEl = Math.max(Math.sin(el), 0.05);
  // noiseScale: share of the receiver noise left after carrier smoothing (1 for raw code).
  // The ionosphere-free combination carries both codes' noise (8.87 times one code's variance on L1/L2).
  const noise = noiseScale * (m.ionoFree?.noiseFactor ?? 1) * (0.15 * 0.15 + (0.15 * 0.15) / (sinEl * sinEl));
  const orbit = 0.0625 * m.ephemerisVariance;
  const iono = (0.1 * ionoDelay) ** 2;
  // Residual troposphere error after the model: 0.12 m at the zenith, mapped (RTCA DO-229 A.4.2.4).
  const tropo = (0.12 * tropoMapping(el)) ** 2;
  const glonassFactor = m.constellation === 'GLONASS' ? 2.25 : 1;
  return glonassFactor * (noise + orbit + iono + tropo);
}

/** Geometric range with the Sagnac (Earth rotation during travel) correction, and the unit line of sight. */
export function geometricRange(sat: Vec3, rcv: Vec3): { range: number; los: Vec3 } {
  const d: Vec3 = [sat[0] - rcv[0], sat[1] - rcv[1], sat[2] - rcv[2]];
  const r = norm(d);
  return { range: r + (OMEGA_E * (sat[0] * rcv[1] - sat[1] * rcv[0])) / CLIGHT, los: [d[0] / r, d[1] / r, d[2] / r] };
}

const MAX_ITER = 10;

/**
 * Solves one epoch. Returns `fix: false` with the reason when there are too few satellites,
 * the geometry is singular, the iteration diverges or the result is not on the Earth.
 */
export function solveSpp(time: number, all: SatMeasurement[], options: SppOptions = {}): SppResult {
  const mask = (options.elevationMaskDeg ?? 10) * RAD;
  const meas = all.filter((m) => !options.exclude?.has(m.sat));
  const noFix = (reason: string): SppNoFix => ({ fix: false, time, reason, satellitesAvailable: meas.length });
  let x: number[] = [...(options.initial ?? [0, 0, 0])];
  let systems: Constellation[] = [];
  const { tow } = gpsWeekTow(time);

  /** Linearises at the current estimate: residuals, weights and design rows of the usable satellites. */
  const linearise = () => {
    const rcv: Vec3 = [x[0], x[1], x[2]];
    const geo = ecefToGeodetic(rcv);
    const used: { m: SatMeasurement; res: SatResidual; los: Vec3 }[] = [];
    for (const m of meas) {
      const { range, los } = geometricRange(m.satPos, rcv);
      const { az, el } = azEl(rcv, geo, m.satPos);
      if (el < mask) continue;
      const ionoDelay = m.ionoFree ? 0 : klobuchar(options.iono, geo, az, el, tow) * ionoScale(m.frequency);
      const tropoDelay = saastamoinen(geo, el);
      used.push({ m, los, res: { sat: m.sat, constellation: m.constellation, az, el, range, ionoDelay, tropoDelay, residual: 0, sigma: 0 } });
    }
    const nextSystems = [...new Set(used.map((u) => u.m.constellation))].sort();
    if (nextSystems.join() !== systems.join()) {
      // The set of clocks changed: carry over known clocks, start new ones from zero.
      const old = new Map(systems.map((sys, k) => [sys, x[3 + k]]));
      x = [x[0], x[1], x[2], ...nextSystems.map((sys) => old.get(sys) ?? 0)];
      systems = nextSystems;
    }
    return used.map((u) => {
      const k = systems.indexOf(u.m.constellation);
      const predicted = u.res.range + x[3 + k] - CLIGHT * u.m.satClock + u.res.ionoDelay + u.res.tropoDelay;
      u.res.residual = u.m.pseudorange - predicted;
      u.res.sigma = Math.sqrt(pseudorangeVariance(u.res.el, u.m, u.res.ionoDelay));
      const h = [-u.los[0], -u.los[1], -u.los[2], ...systems.map((_, j) => (j === k ? 1 : 0))];
      return { res: u.res, h };
    });
  };

  let iterations = 0;
  let converged = false;
  while (iterations < MAX_ITER && !converged) {
    iterations++;
    const rows = linearise();
    const nx = 3 + Math.max(1, systems.length);
    if (rows.length < nx) return noFix(`too few satellites: ${rows.length} usable, ${nx} needed`);
    const sol = weightedLeastSquares(
      rows.map((r) => r.h),
      rows.map((r) => r.res.residual),
      rows.map((r) => 1 / (r.res.sigma * r.res.sigma)),
    );
    if (!sol) return noFix('singular satellite geometry');
    x = x.map((v, k) => v + sol.x[k]);
    converged = Math.hypot(sol.x[0], sol.x[1], sol.x[2]) < 1e-4;
  }
  if (!converged) return noFix('least squares did not converge');
  const rows = linearise();
  if (rows.length < 3 + Math.max(1, systems.length)) return noFix(`too few satellites: ${rows.length} usable, ${3 + Math.max(1, systems.length)} needed`);
  const position: Vec3 = [x[0], x[1], x[2]];
  const geodetic = ecefToGeodetic(position);
  const r = norm(position);
  if (!(r > 6.0e6 && r < 6.5e6 + 1e5) || !Number.isFinite(r)) return noFix('solution is not near the Earth surface');
  const w = rows.map((row) => 1 / (row.res.sigma * row.res.sigma));
  const hm = rows.map((row) => row.h);
  const weighted = weightedLeastSquares(hm, rows.map(() => 0), w);
  if (!weighted) return noFix('singular satellite geometry');
  const dop = dops(rows.map((row) => row.h), geodetic, systems.length);
  if (!dop) return noFix('singular satellite geometry');
  const sse = rows.reduce((s, row) => s + (row.res.residual * row.res.residual) / (row.res.sigma * row.res.sigma), 0);
  const enuCov = enuVariances(weighted.q, geodetic);
  return {
    fix: true,
    time,
    position,
    geodetic,
    clockBias: Object.fromEntries(systems.map((s, k) => [s, x[3 + k]])),
    residuals: rows.map((row) => row.res),
    dop,
    sigmaEnu: [Math.sqrt(enuCov[0]), Math.sqrt(enuCov[1]), Math.sqrt(enuCov[2])],
    sse,
    dof: rows.length - (3 + systems.length),
    covariance: weighted.q,
    iterations,
  };
}

/** Rotates the position block of a covariance matrix to east, north, up variances. */
function enuVariances(q: Matrix, g: Geodetic): Vec3 {
  const out: number[] = [];
  const rows: Vec3[] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ].map((u) => ecefToEnu(u as Vec3, g)) as Vec3[];
  // rows[k] is ECEF axis k in ENU; column j of that set is ENU axis j in ECEF.
  for (let j = 0; j < 3; j++) {
    const a = [rows[0][j], rows[1][j], rows[2][j]];
    let v = 0;
    for (let p = 0; p < 3; p++) for (let s = 0; s < 3; s++) v += a[p] * q[p][s] * a[s];
    out.push(v);
  }
  return out as Vec3;
}

/** Dilution of precision from the unweighted geometry in the local frame; TDOP of the first clock. */
export function dops(h: number[][], g: Geodetic, clocks: number): Dop | undefined {
  const enu: number[][] = h.map((row) => {
    const e = ecefToEnu([-row[0], -row[1], -row[2]], g);
    return [-e[0], -e[1], -e[2], ...row.slice(3)];
  });
  const n = 3 + clocks;
  const ata: Matrix = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (const row of enu) for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) ata[a][b] += row[a] * row[b];
  const q = invert(ata);
  if (!q) return undefined;
  const trace = q.reduce((s, row, k) => s + row[k], 0);
  return {
    gdop: Math.sqrt(trace),
    pdop: Math.sqrt(q[0][0] + q[1][1] + q[2][2]),
    hdop: Math.sqrt(q[0][0] + q[1][1]),
    vdop: Math.sqrt(q[2][2]),
    tdop: Math.sqrt(q[3][3]),
  };
}
