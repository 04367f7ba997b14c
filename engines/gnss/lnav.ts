// GPS LNAV subframes 1-3 (from UBX RXM-SFRBX words) decoded into broadcast ephemerides (IS-GPS-200 20.3.3).
import type { KeplerEphemeris } from './ephemeris/types.ts';
import { resolveWeekRollover, WEEK_SECONDS } from './time.ts';

const P2 = (n: number) => 2 ** n;
const PI = Math.PI;

/** URA index to metres (IS-GPS-200 20.3.3.3.1.3). */
const URA = [2.4, 3.4, 4.85, 6.85, 9.65, 13.65, 24, 48, 96, 192, 384, 768, 1536, 3072, 6144, 6144];

/** 240 data bits of a subframe: ten 30-bit words with the six parity bits removed. */
export function subframeBits(words: number[]): Uint8Array {
  const bits = new Uint8Array(240);
  for (let w = 0; w < 10; w++) {
    const data = ((words[w] ?? 0) >>> 6) & 0xffffff;
    for (let b = 0; b < 24; b++) bits[w * 24 + b] = (data >>> (23 - b)) & 1;
  }
  return bits;
}

function u(bits: Uint8Array, pos: number, len: number): number {
  let v = 0;
  for (let i = 0; i < len; i++) v = v * 2 + bits[pos + i];
  return v;
}

function s(bits: Uint8Array, pos: number, len: number): number {
  const v = u(bits, pos, len);
  return bits[pos] ? v - P2(len) : v;
}

/** Subframe id (1-5) and the HOW time of week (s) of the next subframe start. */
export function subframeHeader(bits: Uint8Array): { id: number; tow: number; preambleOk: boolean } {
  return { id: u(bits, 43, 3), tow: u(bits, 24, 17) * 6, preambleOk: u(bits, 0, 8) === 0x8b };
}

interface Partial1 {
  week: number;
  ura: number;
  health: number;
  iodc: number;
  tgd: number;
  toc: number;
  af0: number;
  af1: number;
  af2: number;
}

/**
 * Collects subframes per satellite and emits an ephemeris when subframes 1, 2 and 3 with the
 * same issue of data are in hand. The 10-bit week is resolved against a reference GPS time.
 */
export class LnavDecoder {
  private readonly sf = new Map<string, { 1?: Partial1; 2?: Record<string, number>; 3?: Record<string, number> }>();

  /** Feeds one subframe of satellite `sat` (`G05`); returns a new ephemeris when one completes. */
  push(sat: string, words: number[], referenceGps: number): KeplerEphemeris | undefined {
    if (words.length < 10) return undefined;
    const bits = subframeBits(words);
    const { id, preambleOk } = subframeHeader(bits);
    if (!preambleOk || id < 1 || id > 3) return undefined;
    const entry = this.sf.get(sat) ?? {};
    this.sf.set(sat, entry);
    if (id === 1) {
      entry[1] = {
        week: resolveWeekRollover(u(bits, 48, 10), referenceGps),
        ura: URA[u(bits, 60, 4)],
        health: u(bits, 64, 6),
        iodc: u(bits, 70, 2) * 256 + u(bits, 168, 8),
        tgd: s(bits, 160, 8) * P2(-31),
        toc: u(bits, 176, 16) * 16,
        af2: s(bits, 192, 8) * P2(-55),
        af1: s(bits, 200, 16) * P2(-43),
        af0: s(bits, 216, 22) * P2(-31),
      };
    } else if (id === 2) {
      entry[2] = {
        iode: u(bits, 48, 8),
        crs: s(bits, 56, 16) * P2(-5),
        deltaN: s(bits, 72, 16) * P2(-43) * PI,
        m0: s(bits, 88, 32) * P2(-31) * PI,
        cuc: s(bits, 120, 16) * P2(-29),
        e: u(bits, 136, 32) * P2(-33),
        cus: s(bits, 168, 16) * P2(-29),
        sqrtA: u(bits, 184, 32) * P2(-19),
        toe: u(bits, 216, 16) * 16,
      };
    } else {
      entry[3] = {
        cic: s(bits, 48, 16) * P2(-29),
        omega0: s(bits, 64, 32) * P2(-31) * PI,
        cis: s(bits, 96, 16) * P2(-29),
        i0: s(bits, 112, 32) * P2(-31) * PI,
        crc: s(bits, 144, 16) * P2(-5),
        omega: s(bits, 160, 32) * P2(-31) * PI,
        omegaDot: s(bits, 192, 24) * P2(-43) * PI,
        iode: u(bits, 216, 8),
        idot: s(bits, 224, 14) * P2(-43) * PI,
      };
    }
    const a = entry[1];
    const b = entry[2];
    const c = entry[3];
    if (!a || !b || !c || b.iode !== c.iode || (a.iodc & 0xff) !== b.iode) return undefined;
    this.sf.delete(sat);
    const weekStart = a.week * WEEK_SECONDS;
    // toe and toc are times of week: the week may have turned between them and the week number.
    const near = (sow: number) => {
      let t = weekStart + sow;
      if (t - referenceGps > WEEK_SECONDS / 2) t -= WEEK_SECONDS;
      else if (referenceGps - t > WEEK_SECONDS / 2) t += WEEK_SECONDS;
      return t;
    };
    return {
      kind: 'kepler',
      sat,
      toc: near(a.toc),
      af0: a.af0,
      af1: a.af1,
      af2: a.af2,
      iode: b.iode,
      crs: b.crs,
      deltaN: b.deltaN,
      m0: b.m0,
      cuc: b.cuc,
      e: b.e,
      cus: b.cus,
      sqrtA: b.sqrtA,
      toe: near(b.toe),
      cic: c.cic,
      omega0: c.omega0,
      cis: c.cis,
      i0: c.i0,
      crc: c.crc,
      omega: c.omega,
      omegaDot: c.omegaDot,
      idot: c.idot,
      accuracy: a.ura,
      health: a.health,
      tgd: a.tgd,
    };
  }
}
