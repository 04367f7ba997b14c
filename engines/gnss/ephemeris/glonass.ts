// GLONASS satellite state from broadcast state vectors by fourth-order Runge-Kutta integration (GLONASS ICD A.3.1.2).
import { J2_GLO, MU_GLO, OMEGA_E_GLO, RE_GLO } from '../constants.ts';
import type { Vec3 } from '../geodesy.ts';
import type { SatState } from './gps.ts';
import type { GlonassEphemeris } from './types.ts';

type State = [number, number, number, number, number, number];

/** Equations of motion in the rotating PZ-90 frame: central body, J2, Earth rotation and lunisolar acceleration. */
function derivative(x: State, acc: Vec3): State {
  const r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  const r3 = r2 * Math.sqrt(r2);
  const omg2 = OMEGA_E_GLO * OMEGA_E_GLO;
  if (r2 <= 0) return [0, 0, 0, 0, 0, 0];
  const a = (1.5 * J2_GLO * MU_GLO * RE_GLO * RE_GLO) / r2 / r3;
  const b = (5 * x[2] * x[2]) / r2;
  const c = -MU_GLO / r3 - a * (1 - b);
  return [
    x[3],
    x[4],
    x[5],
    (c + omg2) * x[0] + 2 * OMEGA_E_GLO * x[4] + acc[0],
    (c + omg2) * x[1] - 2 * OMEGA_E_GLO * x[3] + acc[1],
    (c - 2 * a) * x[2] + acc[2],
  ];
}

function step(x: State, h: number, acc: Vec3): State {
  const add = (s: State, d: State, f: number) => s.map((v, i) => v + d[i] * f) as State;
  const k1 = derivative(x, acc);
  const k2 = derivative(add(x, k1, h / 2), acc);
  const k3 = derivative(add(x, k2, h / 2), acc);
  const k4 = derivative(add(x, k3, h), acc);
  return x.map((v, i) => v + ((k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) * h) / 6) as State;
}

/** Position, velocity and clock of a GLONASS satellite at GPS time `t` (60 s integration steps). */
export function glonassState(eph: GlonassEphemeris, t: number): SatState {
  let x: State = [...eph.pos, ...eph.vel];
  let tt = t - eph.toe;
  const h0 = 60;
  while (Math.abs(tt) > 1e-9) {
    const h = Math.abs(tt) < h0 ? tt : Math.sign(tt) * h0;
    x = step(x, h, eph.acc);
    tt -= h;
  }
  const dt = t - eph.toe;
  return {
    pos: [x[0], x[1], x[2]],
    vel: [x[3], x[4], x[5]],
    clock: eph.clockBias + eph.gammaN * dt,
    clockDrift: eph.gammaN,
  };
}
