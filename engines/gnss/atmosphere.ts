// Broadcast ionosphere (Klobuchar, IS-GPS-200 20.3.3.5.2.5) and Saastamoinen troposphere delays, metres on L1.
import { CLIGHT } from './constants.ts';
import type { Geodetic } from './geodesy.ts';
import type { IonoCoefficients } from './ephemeris/types.ts';

/** Coefficients the GPS control segment broadcast on 2004-01-01, used when a file carries none. */
export const DEFAULT_IONO: IonoCoefficients = {
  alpha: [0.1118e-7, -0.7451e-8, -0.596e-7, 0.1192e-6],
  beta: [0.1167e6, -0.2294e6, -0.1311e6, 0.1049e7],
};

/**
 * Klobuchar L1 ionospheric group delay in metres for a receiver at `pos`, a satellite at
 * azimuth/elevation (radians), at GPS time of week `tow` (s). Zero below the horizon or for a
 * position that is not yet near the Earth's surface.
 */
export function klobuchar(iono: IonoCoefficients | undefined, pos: Geodetic, az: number, el: number, tow: number): number {
  if (pos.height < -1e3 || el <= 0) return 0;
  const c = iono && [...iono.alpha, ...iono.beta].some((v) => v !== 0) ? iono : DEFAULT_IONO;
  const pi = Math.PI;
  // Earth-centred angle and the ionospheric pierce point, in semicircles.
  const psi = 0.0137 / (el / pi + 0.11) - 0.022;
  let phi = pos.lat / pi + psi * Math.cos(az);
  phi = Math.max(-0.416, Math.min(0.416, phi));
  const lam = pos.lon / pi + (psi * Math.sin(az)) / Math.cos(phi * pi);
  const phim = phi + 0.064 * Math.cos((lam - 1.617) * pi);
  let t = 43200 * lam + tow;
  t -= Math.floor(t / 86400) * 86400;
  const f = 1 + 16 * Math.pow(0.53 - el / pi, 3);
  const amp = Math.max(0, c.alpha[0] + phim * (c.alpha[1] + phim * (c.alpha[2] + phim * c.alpha[3])));
  const per = Math.max(72000, c.beta[0] + phim * (c.beta[1] + phim * (c.beta[2] + phim * c.beta[3])));
  const x = (2 * pi * (t - 50400)) / per;
  const delay = Math.abs(x) < 1.57 ? 5e-9 + amp * (1 + x * x * (-0.5 + (x * x) / 24)) : 5e-9;
  return CLIGHT * f * delay;
}

/**
 * Saastamoinen tropospheric delay (metres) with a standard atmosphere (15 degC and 1013.25 hPa
 * at sea level, relative humidity `humidity`): the zenith delays mapped to the elevation with
 * `tropoMapping`.
 */
export function saastamoinen(pos: Geodetic, el: number, humidity = 0.7): number {
  if (pos.height < -100 || pos.height > 1e4 || el <= 0) return 0;
  const hgt = Math.max(0, pos.height);
  const pres = 1013.25 * Math.pow(1 - 2.2557e-5 * hgt, 5.2568);
  const temp = 15 - 6.5e-3 * hgt + 273.16;
  const e = 6.108 * humidity * Math.exp((17.15 * temp - 4684) / (temp - 38.45));
  const hydro = (0.0022768 * pres) / (1 - 0.00266 * Math.cos(2 * pos.lat) - 0.00028 * (hgt / 1e3));
  const wet = 0.002277 * (1255 / temp + 0.05) * e;
  return (hydro + wet) * tropoMapping(el);
}

/**
 * Troposphere mapping function of RTCA DO-229 (WAAS MOPS, A.4.2.4): 1.001 / sqrt(0.002001 +
 * sin^2 el). Unlike the flat-Earth 1/sin el it accounts for the atmosphere's curvature, which
 * matters low down: at 10 degrees 1/sin el maps 3 % too much (about 0.4 m of a 2.4 m zenith
 * delay), at 5 degrees 10 %.
 */
export function tropoMapping(el: number): number {
  const s = Math.sin(el);
  return 1.001 / Math.sqrt(0.002001 + s * s);
}

/** Ionospheric delay scales with 1/f^2: the factor from GPS L1 to another carrier frequency. */
export function ionoScale(frequencyHz: number): number {
  const l1 = 1575.42e6;
  return (l1 * l1) / (frequencyHz * frequencyHz);
}
