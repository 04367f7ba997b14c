// The simulator's constellation: a shipped broadcast navigation file, re-timed so that its satellites are overhead now.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OMEGA_E } from '../constants.ts';
import type { Ephemeris, NavData } from '../ephemeris/types.ts';
import { parseNav } from '../rinex/nav.ts';
import { WEEK_SECONDS } from '../time.ts';

/** IGS broadcast ephemeris of 2021-04-28 (GPS), as in the fixtures; ephemerides from 18:00 to 24:00 GPS time are used. */
export const DEFAULT_NAV_FILE = fileURLToPath(new URL('../data/brdc1180.21n', import.meta.url));

export interface RetimedConstellation {
  nav: NavData;
  /** Seconds added to every ephemeris time: simulated time = original time + shift. */
  shift: number;
  /** Simulated GPS time span [start, end) over which the re-timed ephemerides are valid. */
  validFrom: number;
  validUntil: number;
}

/**
 * Shifts every ephemeris by `shift` seconds. For Keplerian elements the right ascension is
 * corrected for the Earth's rotation over the shift, so the satellites occupy exactly the same
 * Earth-fixed positions at the shifted time as they did at the original one.
 */
export function shiftEphemeris(e: Ephemeris, shift: number): Ephemeris {
  if (e.kind === 'glonass') return { ...e, toe: e.toe + shift };
  const oldSow = ((e.toe % WEEK_SECONDS) + WEEK_SECONDS) % WEEK_SECONDS;
  const newToe = e.toe + shift;
  const newSow = ((newToe % WEEK_SECONDS) + WEEK_SECONDS) % WEEK_SECONDS;
  return { ...e, toe: newToe, toc: e.toc + shift, omega0: e.omega0 + OMEGA_E * (newSow - oldSow) };
}

/**
 * Re-times a navigation file so that the simulated instant `now` falls `offsetIntoWindow`
 * seconds into its usable window (the span from its first to its last full set of reference
 * times), and reports the simulated time range over which it stays valid.
 */
export function retime(nav: NavData, now: number, offsetIntoWindow = 0): RetimedConstellation {
  const toes = nav.ephemerides.map((e) => e.toe).sort((a, b) => a - b);
  if (toes.length === 0) throw new Error('navigation file has no ephemerides');
  const first = toes[Math.floor(toes.length * 0.05)];
  const last = toes[Math.floor(toes.length * 0.95)];
  const windowStart = Math.ceil(first / 3600) * 3600;
  const windowEnd = Math.max(windowStart + 3600, Math.floor(last / 3600) * 3600 + 7200);
  const shift = now - (windowStart + offsetIntoWindow);
  return {
    nav: { ...nav, ephemerides: nav.ephemerides.map((e) => shiftEphemeris(e, shift)) },
    shift,
    validFrom: windowStart + shift,
    validUntil: windowEnd + shift,
  };
}

export function loadDefaultNav(): NavData {
  return parseNav(readFileSync(DEFAULT_NAV_FILE, 'latin1'));
}
