// Builds UBX RXM-SFRBX (GPS LNAV subframes 1-3) and RXM-RAWX frames from ephemerides and observations, for end-to-end tests.
import type { KeplerEphemeris } from '../ephemeris/types.ts';
import type { ObsEpoch } from '../rinex/obs.ts';
import { encodeUbx } from '../ubx.ts';
import { gpsWeekTow } from '../time.ts';

const URA = [2.4, 3.4, 4.85, 6.85, 9.65, 13.65, 24, 48, 96, 192, 384, 768, 1536, 3072, 6144];

class Bits {
  readonly bits = new Uint8Array(240);
  put(pos: number, len: number, value: number): void {
    let v = Math.round(value);
    if (v < 0) v += 2 ** len;
    for (let i = len - 1; i >= 0; i--) {
      this.bits[pos + i] = v % 2;
      v = Math.floor(v / 2);
    }
  }
  words(): number[] {
    const out: number[] = [];
    for (let w = 0; w < 10; w++) {
      let d = 0;
      for (let b = 0; b < 24; b++) d = d * 2 + this.bits[w * 24 + b];
      out.push(d * 64);
    }
    return out;
  }
}

function header(b: Bits, id: number, tow: number): void {
  b.put(0, 8, 0x8b);
  b.put(24, 17, Math.floor(tow / 6));
  b.put(43, 3, id);
}

/** The three LNAV subframes of an ephemeris as 10 words each (parity bits zero). */
export function lnavSubframes(e: KeplerEphemeris): number[][] {
  const { week, tow: toeSow } = gpsWeekTow(e.toe);
  const tocSow = gpsWeekTow(e.toc).tow;
  const pi = Math.PI;
  const sf1 = new Bits();
  header(sf1, 1, toeSow);
  sf1.put(48, 10, week % 1024);
  sf1.put(60, 4, Math.max(0, URA.findIndex((v) => v >= e.accuracy)));
  sf1.put(64, 6, e.health);
  sf1.put(70, 2, 0);
  sf1.put(160, 8, e.tgd / 2 ** -31);
  sf1.put(168, 8, e.iode);
  sf1.put(176, 16, tocSow / 16);
  sf1.put(192, 8, e.af2 / 2 ** -55);
  sf1.put(200, 16, e.af1 / 2 ** -43);
  sf1.put(216, 22, e.af0 / 2 ** -31);
  const sf2 = new Bits();
  header(sf2, 2, toeSow);
  sf2.put(48, 8, e.iode);
  sf2.put(56, 16, e.crs / 2 ** -5);
  sf2.put(72, 16, e.deltaN / pi / 2 ** -43);
  sf2.put(88, 32, e.m0 / pi / 2 ** -31);
  sf2.put(120, 16, e.cuc / 2 ** -29);
  sf2.put(136, 32, e.e / 2 ** -33);
  sf2.put(168, 16, e.cus / 2 ** -29);
  sf2.put(184, 32, e.sqrtA / 2 ** -19);
  sf2.put(216, 16, toeSow / 16);
  const sf3 = new Bits();
  header(sf3, 3, toeSow);
  sf3.put(48, 16, e.cic / 2 ** -29);
  sf3.put(64, 32, e.omega0 / pi / 2 ** -31);
  sf3.put(96, 16, e.cis / 2 ** -29);
  sf3.put(112, 32, e.i0 / pi / 2 ** -31);
  sf3.put(144, 16, e.crc / 2 ** -5);
  sf3.put(160, 32, e.omega / pi / 2 ** -31);
  sf3.put(192, 24, e.omegaDot / pi / 2 ** -43);
  sf3.put(216, 8, e.iode);
  sf3.put(224, 14, e.idot / pi / 2 ** -43);
  return [sf1.words(), sf2.words(), sf3.words()];
}

/** RXM-SFRBX frame carrying one GPS subframe of satellite `prn`. */
export function sfrbxFrame(prn: number, words: number[]): Buffer {
  const p = Buffer.alloc(8 + 40);
  p[0] = 0;
  p[1] = prn;
  p[4] = 10;
  p[6] = 2;
  words.forEach((w, k) => p.writeUInt32LE(w >>> 0, 8 + 4 * k));
  return encodeUbx(0x02, 0x13, p);
}

/** RXM-RAWX frame of an observation epoch (GPS L1 C/A only). */
export function rawxFrame(obs: ObsEpoch): Buffer {
  const { week, tow } = gpsWeekTow(obs.time);
  const p = Buffer.alloc(16 + 32 * obs.sats.length);
  p.writeDoubleLE(tow, 0);
  p.writeUInt16LE(week, 8);
  p.writeInt8(18, 10);
  p[11] = obs.sats.length;
  obs.sats.forEach((s, k) => {
    const o = 16 + 32 * k;
    p.writeDoubleLE(s.pseudorange ?? 0, o);
    p.writeDoubleLE(s.carrierPhase ?? 0, o + 8);
    p.writeFloatLE(s.doppler ?? 0, o + 16);
    p[o + 20] = 0;
    p[o + 21] = Number(s.sat.slice(1));
    p[o + 26] = Math.round(s.cn0 ?? 0);
    p[o + 30] = (s.pseudorange !== undefined ? 1 : 0) | (s.carrierPhase !== undefined ? 2 : 0);
  });
  return encodeUbx(0x02, 0x15, p);
}
