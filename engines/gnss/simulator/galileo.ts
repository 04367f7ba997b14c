// The Galileo reference constellation as broadcast Keplerian elements, so that the simulator carries GPS and Galileo.
import { MU_GAL, OMEGA_E } from '../constants.ts';
import type { KeplerEphemeris, NavData } from '../ephemeris/types.ts';
import { WEEK_SECONDS } from '../time.ts';
import { loadDefaultNav } from './constellation.ts';

/**
 * Galileo's nominal constellation (Galileo OS SIS ICD and the ESA reference constellation): a
 * Walker 24/3/1 pattern, three planes 120 degrees apart in right ascension, eight slots per
 * plane 45 degrees apart, 15 degrees of phase between neighbouring planes; semi-major axis
 * 29 599.8 km, inclination 56 degrees, near-circular orbits. The nodal regression is the
 * broadcast value of the real satellites (about -5.5e-9 rad/s).
 */
export const GALILEO_NOMINAL = { semiMajorAxisM: 29_599_801, inclinationDeg: 56, planes: 3, slotsPerPlane: 8, phasingF: 1, omegaDot: -5.5e-9 } as const;

const DEG = Math.PI / 180;

/**
 * Keplerian ephemerides of the 24 nominal Galileo slots (E01-E24), one set every `stepS`
 * seconds from `fromGps` to `toGps` (GPS seconds), as a receiver would decode them from I/NAV.
 * Clocks carry small constant offsets of the size real satellites broadcast (tens of
 * microseconds), so that the receiver's clock correction is exercised; SISA 3.12 m; healthy.
 *
 * @example
 * const nav = galileoNominalNav(t0, t0 + 6 * 3600); // 24 satellites, 3 h fit each
 */
export function galileoNominalNav(fromGps: number, toGps: number, stepS = 3600): KeplerEphemeris[] {
  const c = GALILEO_NOMINAL;
  const a = c.semiMajorAxisM;
  const n = Math.sqrt(MU_GAL / (a * a * a));
  const out: KeplerEphemeris[] = [];
  // Reference epoch of the pattern: the first reference time; right ascensions are inertial there.
  const tref = Math.floor(fromGps / stepS) * stepS;
  for (let toe = tref; toe <= toGps; toe += stepS) {
    const weekStart = Math.floor(toe / WEEK_SECONDS) * WEEK_SECONDS;
    for (let p = 0; p < c.planes; p++) {
      for (let s = 0; s < c.slotsPerPlane; s++) {
        const prn = p * c.slotsPerPlane + s + 1;
        const raan = p * (360 / c.planes) * DEG;
        const phase = (s * (360 / c.slotsPerPlane) + p * ((360 * c.phasingF) / (c.planes * c.slotsPerPlane))) * DEG;
        // Broadcast OMEGA0 is the node's longitude at the start of the week: the inertial node less Earth rotation since then.
        const omega0 = wrap(raan + c.omegaDot * (toe - tref) - OMEGA_E * weekStart);
        out.push({
          kind: 'kepler',
          sat: `E${String(prn).padStart(2, '0')}`,
          toc: toe,
          af0: (((prn * 37) % 19) - 9) * 1.1e-5,
          af1: (((prn * 11) % 7) - 3) * 1e-12,
          af2: 0,
          iode: Math.round((toe - tref) / stepS) % 1024,
          crs: 0,
          deltaN: 0,
          m0: wrap(phase + n * (toe - tref)),
          cuc: 0,
          e: 2e-4,
          cus: 0,
          sqrtA: Math.sqrt(a),
          toe,
          cic: 0,
          omega0,
          cis: 0,
          i0: c.inclinationDeg * DEG,
          crc: 0,
          omega: 0,
          omegaDot: c.omegaDot,
          idot: 0,
          accuracy: 3.12,
          health: 0,
          tgd: 0,
        });
      }
    }
  }
  return out;
}

function wrap(x: number): number {
  const t = x % (2 * Math.PI);
  return t > Math.PI ? t - 2 * Math.PI : t < -Math.PI ? t + 2 * Math.PI : t;
}

let cached: NavData | undefined;

/**
 * The simulator's navigation data with two constellations: the shipped GPS broadcast file and
 * the nominal Galileo constellation over the same day, so that positions use GPS and Galileo
 * (and the multi-constellation check runs) exactly as with a mixed RINEX 3 file.
 */
export function gpsGalileoNav(): NavData {
  if (cached) return cached;
  const gps = loadDefaultNav();
  const toes = gps.ephemerides.map((e) => e.toe);
  const from = Math.min(...toes);
  const to = Math.max(...toes);
  cached = { ...gps, ephemerides: [...gps.ephemerides, ...galileoNominalNav(from, to)] };
  return cached;
}
