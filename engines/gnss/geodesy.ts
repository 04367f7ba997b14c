// WGS 84 coordinate conversions: ECEF <-> geodetic, local east-north-up frames, azimuth and elevation.
import { WGS84_A, WGS84_F } from './constants.ts';

export type Vec3 = [number, number, number];

/** Geodetic coordinates: latitude and longitude in radians, height above the ellipsoid in metres. */
export interface Geodetic {
  lat: number;
  lon: number;
  height: number;
}

const E2 = WGS84_F * (2 - WGS84_F);

/** ECEF (m) to geodetic (iterative, converges to sub-millimetre in a few steps). */
export function ecefToGeodetic(r: Vec3): Geodetic {
  const [x, y, z] = r;
  const p2 = x * x + y * y;
  const p = Math.sqrt(p2);
  if (p2 + z * z <= 0) return { lat: 0, lon: 0, height: -WGS84_A };
  let zk = 0;
  let zi = z;
  let v = WGS84_A;
  for (let i = 0; i < 20 && Math.abs(zi - zk) >= 1e-4; i++) {
    zk = zi;
    const sinp = zk / Math.sqrt(p2 + zk * zk);
    v = WGS84_A / Math.sqrt(1 - E2 * sinp * sinp);
    zi = z + v * E2 * sinp;
  }
  const lat = p2 > 1e-12 ? Math.atan(zi / p) : z > 0 ? Math.PI / 2 : -Math.PI / 2;
  const lon = p2 > 1e-12 ? Math.atan2(y, x) : 0;
  return { lat, lon, height: Math.sqrt(p2 + zi * zi) - v };
}

/** Geodetic to ECEF (m). */
export function geodeticToEcef(g: Geodetic): Vec3 {
  const sinp = Math.sin(g.lat);
  const cosp = Math.cos(g.lat);
  const v = WGS84_A / Math.sqrt(1 - E2 * sinp * sinp);
  return [
    (v + g.height) * cosp * Math.cos(g.lon),
    (v + g.height) * cosp * Math.sin(g.lon),
    (v * (1 - E2) + g.height) * sinp,
  ];
}

/** Rotation from ECEF to local east-north-up at a geodetic position, as three row vectors. */
export function enuMatrix(g: Geodetic): [Vec3, Vec3, Vec3] {
  const sp = Math.sin(g.lat);
  const cp = Math.cos(g.lat);
  const sl = Math.sin(g.lon);
  const cl = Math.cos(g.lon);
  return [
    [-sl, cl, 0],
    [-sp * cl, -sp * sl, cp],
    [cp * cl, cp * sl, sp],
  ];
}

/** An ECEF vector expressed in the local east-north-up frame at `g`. */
export function ecefToEnu(d: Vec3, g: Geodetic): Vec3 {
  const m = enuMatrix(g);
  return [dot(m[0], d), dot(m[1], d), dot(m[2], d)];
}

/** Local east-north-up vector to ECEF at `g`. */
export function enuToEcef(e: Vec3, g: Geodetic): Vec3 {
  const m = enuMatrix(g);
  return [
    m[0][0] * e[0] + m[1][0] * e[1] + m[2][0] * e[2],
    m[0][1] * e[0] + m[1][1] * e[1] + m[2][1] * e[2],
    m[0][2] * e[0] + m[1][2] * e[1] + m[2][2] * e[2],
  ];
}

/**
 * Azimuth and elevation (radians) of a satellite seen from a receiver. At the Earth's centre
 * (the first iteration of a solution started from nothing) every satellite is overhead.
 */
export function azEl(receiver: Vec3, g: Geodetic, sat: Vec3): { az: number; el: number } {
  if (g.height <= -WGS84_A + 1) return { az: 0, el: Math.PI / 2 };
  const d: Vec3 = [sat[0] - receiver[0], sat[1] - receiver[1], sat[2] - receiver[2]];
  const n = norm(d);
  const e = ecefToEnu([d[0] / n, d[1] / n, d[2] / n], g);
  let az = Math.atan2(e[0], e[1]);
  if (az < 0) az += 2 * Math.PI;
  return { az, el: Math.asin(Math.max(-1, Math.min(1, e[2]))) };
}

export function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function norm(a: Vec3): number {
  return Math.sqrt(dot(a, a));
}

export function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

export const RAD = Math.PI / 180;
