// Receiver velocity, clock drift, speed and heading from Doppler measurements by least squares.
import { CLIGHT } from './constants.ts';
import { ecefToEnu, type Vec3 } from './geodesy.ts';
import { weightedLeastSquares } from './linalg.ts';
import type { SatMeasurement } from './measurements.ts';
import type { SppFix } from './spp.ts';

export interface VelocityFix {
  velocity: Vec3;
  /** Receiver clock drift, m/s (c times s/s). */
  clockDrift: number;
  speedMps: number;
  /** Course over ground, degrees from north; null when slower than 0.2 m/s (heading is noise). */
  headingDeg: number | null;
  verticalMps: number;
  /** Doppler residuals after the fit, Hz, per satellite. */
  residualsHz: { sat: string; residual: number }[];
}

/**
 * Solves velocity and clock drift from the Doppler of the satellites used in a position fix:
 * -lambda * D = u . (v_sat - v_rcv) + c (drift_rcv - drift_sat). Undefined with fewer than
 * five Dopplers (four unknowns plus one redundant) or singular geometry.
 */
export function solveVelocity(fix: SppFix, meas: SatMeasurement[]): VelocityFix | undefined {
  const bySat = new Map(meas.map((m) => [m.sat, m]));
  const rows: { sat: string; h: number[]; y: number; lambda: number }[] = [];
  for (const r of fix.residuals) {
    const m = bySat.get(r.sat);
    if (!m || m.doppler === undefined) continue;
    const lambda = CLIGHT / m.frequency;
    const d: Vec3 = [m.satPos[0] - fix.position[0], m.satPos[1] - fix.position[1], m.satPos[2] - fix.position[2]];
    const n = Math.hypot(d[0], d[1], d[2]);
    const u: Vec3 = [d[0] / n, d[1] / n, d[2] / n];
    const satRate = u[0] * m.satVel[0] + u[1] * m.satVel[1] + u[2] * m.satVel[2];
    // Observed range rate minus the satellite's contribution: equals -u.v_rcv + c drift_rcv.
    const y = -lambda * m.doppler - satRate + CLIGHT * m.satClockDrift;
    rows.push({ sat: r.sat, h: [-u[0], -u[1], -u[2], 1], y, lambda });
  }
  if (rows.length < 5) return undefined;
  const sol = weightedLeastSquares(
    rows.map((r) => r.h),
    rows.map((r) => r.y),
    rows.map(() => 1),
  );
  if (!sol) return undefined;
  const v: Vec3 = [sol.x[0], sol.x[1], sol.x[2]];
  const enu = ecefToEnu(v, fix.geodetic);
  const speed = Math.hypot(enu[0], enu[1]);
  let heading: number | null = null;
  if (speed >= 0.2) {
    heading = (Math.atan2(enu[0], enu[1]) * 180) / Math.PI;
    if (heading < 0) heading += 360;
  }
  return {
    velocity: v,
    clockDrift: sol.x[3],
    speedMps: speed,
    headingDeg: heading,
    verticalMps: enu[2],
    residualsHz: rows.map((r) => ({ sat: r.sat, residual: (r.y - r.h.reduce((s, hk, k) => s + hk * sol.x[k], 0)) / r.lambda })),
  };
}
