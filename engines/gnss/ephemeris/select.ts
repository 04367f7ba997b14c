// Chooses the broadcast ephemeris valid for a satellite at a time, and computes its state.
import type { Ephemeris } from './types.ts';
import { keplerState, type SatState } from './gps.ts';
import { glonassState } from './glonass.ts';

/** Longest distance from the reference time an ephemeris is used, seconds (GPS fit is 4 h; GLONASS 30 min). */
const MAX_AGE: Record<string, number> = { G: 7200, E: 10800, J: 7200, R: 1800 };

/** Ephemerides indexed by satellite, each list sorted by reference time. */
export class EphemerisStore {
  private readonly bySat = new Map<string, Ephemeris[]>();

  constructor(ephemerides: Ephemeris[]) {
    for (const e of ephemerides) {
      const list = this.bySat.get(e.sat) ?? [];
      list.push(e);
      this.bySat.set(e.sat, list);
    }
    for (const list of this.bySat.values()) list.sort((a, b) => a.toe - b.toe);
  }

  satellites(): string[] {
    return [...this.bySat.keys()].sort();
  }

  /** The healthy ephemeris with reference time nearest `t`, within its validity; undefined otherwise. */
  select(sat: string, t: number): Ephemeris | undefined {
    const list = this.bySat.get(sat);
    if (!list) return undefined;
    const maxAge = MAX_AGE[sat[0]] ?? 7200;
    let best: Ephemeris | undefined;
    let bestAge = Infinity;
    for (const e of list) {
      // Galileo health bits: E1-B data validity (bit 0) and signal health (bits 1-2) are what an E1 user needs.
      const healthy = sat[0] === 'E' ? (e.health & 0x7) === 0 : e.health === 0;
      if (!healthy) continue;
      const age = Math.abs(t - e.toe);
      if (age <= maxAge && age < bestAge) {
        best = e;
        bestAge = age;
      }
    }
    return best;
  }
}

/** State of a satellite from its ephemeris at GPS time t. */
export function satelliteState(eph: Ephemeris, t: number): SatState {
  return eph.kind === 'kepler' ? keplerState(eph, t) : glonassState(eph, t);
}

/** Satellite clock offset (s) for converting a receive time tag into transmission time. */
export function satelliteClock(eph: Ephemeris, t: number): number {
  if (eph.kind === 'glonass') return eph.clockBias + eph.gammaN * (t - eph.toe);
  const dt = t - eph.toc;
  return eph.af0 + eph.af1 * dt + eph.af2 * dt * dt;
}
