// Satellite position, velocity and clock from Keplerian broadcast elements (GPS, Galileo, QZSS).
import { MU_GAL, MU_GPS, OMEGA_E, REL_F } from '../constants.ts';
import type { Vec3 } from '../geodesy.ts';
import type { KeplerEphemeris } from './types.ts';

export interface SatState {
  pos: Vec3;
  vel: Vec3;
  /** Satellite clock offset (s), including the relativistic term, excluding group delay. */
  clock: number;
  /** Satellite clock drift, s/s. */
  clockDrift: number;
}

/**
 * Position (ECEF at time t, in the frame of time t), velocity and clock of a satellite at GPS
 * time `t` (the signal transmission time), following IS-GPS-200 table 20-IV.
 */
export function keplerState(eph: KeplerEphemeris, t: number): SatState {
  const mu = eph.sat[0] === 'E' ? MU_GAL : MU_GPS;
  const a = eph.sqrtA * eph.sqrtA;
  const tk = t - eph.toe;
  const n = Math.sqrt(mu / (a * a * a)) + eph.deltaN;
  const m = eph.m0 + n * tk;
  let ek = m;
  for (let k = 0; k < 30; k++) {
    const next = ek - (ek - eph.e * Math.sin(ek) - m) / (1 - eph.e * Math.cos(ek));
    if (Math.abs(next - ek) < 1e-14) {
      ek = next;
      break;
    }
    ek = next;
  }
  const sinE = Math.sin(ek);
  const cosE = Math.cos(ek);
  const edot = n / (1 - eph.e * cosE);
  const sq = Math.sqrt(1 - eph.e * eph.e);
  const nu = Math.atan2(sq * sinE, cosE - eph.e);
  const phi = nu + eph.omega;
  const phidot = (sq * edot) / (1 - eph.e * cosE);
  const s2 = Math.sin(2 * phi);
  const c2 = Math.cos(2 * phi);
  const u = phi + eph.cus * s2 + eph.cuc * c2;
  const r = a * (1 - eph.e * cosE) + eph.crs * s2 + eph.crc * c2;
  const inc = eph.i0 + eph.idot * tk + eph.cis * s2 + eph.cic * c2;
  const udot = phidot * (1 + 2 * (eph.cus * c2 - eph.cuc * s2));
  const rdot = a * eph.e * sinE * edot + 2 * phidot * (eph.crs * c2 - eph.crc * s2);
  const idot = eph.idot + 2 * phidot * (eph.cis * c2 - eph.cic * s2);
  const xp = r * Math.cos(u);
  const yp = r * Math.sin(u);
  const xpdot = rdot * Math.cos(u) - r * udot * Math.sin(u);
  const ypdot = rdot * Math.sin(u) + r * udot * Math.cos(u);
  const omk = eph.omega0 + (eph.omegaDot - OMEGA_E) * tk - OMEGA_E * (eph.toe % 604800);
  const omdot = eph.omegaDot - OMEGA_E;
  const co = Math.cos(omk);
  const so = Math.sin(omk);
  const ci = Math.cos(inc);
  const si = Math.sin(inc);
  const pos: Vec3 = [xp * co - yp * ci * so, xp * so + yp * ci * co, yp * si];
  const vel: Vec3 = [
    xpdot * co - ypdot * ci * so + yp * si * so * idot - omdot * pos[1],
    xpdot * so + ypdot * ci * co - yp * si * co * idot + omdot * pos[0],
    ypdot * si + yp * ci * idot,
  ];
  const dtc = t - eph.toc;
  const rel = REL_F * eph.e * eph.sqrtA * sinE;
  const clock = eph.af0 + eph.af1 * dtc + eph.af2 * dtc * dtc + rel;
  const clockDrift = eph.af1 + 2 * eph.af2 * dtc;
  return { pos, vel, clock, clockDrift };
}
