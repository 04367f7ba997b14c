// Decoders for the UBX messages the engine reads: NAV solution, time, clock and satellites, RXM raw data and subframes, MON-RF.
import { GnssInputError } from './errors.ts';
import type { UbxFrame } from './ubx.ts';

function need(f: UbxFrame, len: number, name: string): void {
  if (f.payload.length < len) throw new GnssInputError('UBX_CORRUPT', `${name} payload is ${f.payload.length} bytes, expected at least ${len}`);
}

export interface NavSol {
  iTow: number;
  fTow: number;
  week: number;
  gpsFix: number;
  flags: number;
  ecef: [number, number, number];
  pAcc: number;
  ecefVel: [number, number, number];
  sAcc: number;
  pdop: number;
  numSv: number;
}

/** NAV-SOL: ECEF position (cm), velocity (cm/s), week and time of week, fix type. */
export function decodeNavSol(f: UbxFrame): NavSol {
  need(f, 52, 'NAV-SOL');
  const p = f.payload;
  return {
    iTow: p.readUInt32LE(0),
    fTow: p.readInt32LE(4),
    week: p.readInt16LE(8),
    gpsFix: p[10],
    flags: p[11],
    ecef: [p.readInt32LE(12) / 100, p.readInt32LE(16) / 100, p.readInt32LE(20) / 100],
    pAcc: p.readUInt32LE(24) / 100,
    ecefVel: [p.readInt32LE(28) / 100, p.readInt32LE(32) / 100, p.readInt32LE(36) / 100],
    sAcc: p.readUInt32LE(40) / 100,
    pdop: p.readUInt16LE(44) / 100,
    numSv: p[47],
  };
}

export interface NavPvt {
  iTow: number;
  utc: { year: number; month: number; day: number; hour: number; minute: number; second: number; nano: number; valid: number };
  fixType: number;
  flags: number;
  numSv: number;
  lon: number;
  lat: number;
  height: number;
  hMsl: number;
  hAcc: number;
  vAcc: number;
  velNed: [number, number, number];
  gSpeed: number;
  headMot: number;
  pdop: number;
}

/** NAV-PVT: the full navigation solution (degrees, metres, m/s). */
export function decodeNavPvt(f: UbxFrame): NavPvt {
  need(f, 84, 'NAV-PVT');
  const p = f.payload;
  return {
    iTow: p.readUInt32LE(0),
    utc: { year: p.readUInt16LE(4), month: p[6], day: p[7], hour: p[8], minute: p[9], second: p[10], valid: p[11], nano: p.readInt32LE(16) },
    fixType: p[20],
    flags: p[21],
    numSv: p[23],
    lon: p.readInt32LE(24) * 1e-7,
    lat: p.readInt32LE(28) * 1e-7,
    height: p.readInt32LE(32) / 1000,
    hMsl: p.readInt32LE(36) / 1000,
    hAcc: p.readUInt32LE(40) / 1000,
    vAcc: p.readUInt32LE(44) / 1000,
    velNed: [p.readInt32LE(48) / 1000, p.readInt32LE(52) / 1000, p.readInt32LE(56) / 1000],
    gSpeed: p.readInt32LE(60) / 1000,
    headMot: p.readInt32LE(64) * 1e-5,
    pdop: p.readUInt16LE(76) / 100,
  };
}

/** NAV-STATUS: fix type and whether the fix is valid (gpsFixOk). Time-only fixes (5) hold a surveyed position. */
export function decodeNavStatus(f: UbxFrame) {
  need(f, 16, 'NAV-STATUS');
  const p = f.payload;
  return { iTow: p.readUInt32LE(0), gpsFix: p[4], fixOk: (p[5] & 0x01) !== 0 };
}

/** NAV-POSLLH: geodetic position (degrees, metres). */
export function decodeNavPosLlh(f: UbxFrame) {
  need(f, 28, 'NAV-POSLLH');
  const p = f.payload;
  return {
    iTow: p.readUInt32LE(0),
    lon: p.readInt32LE(4) * 1e-7,
    lat: p.readInt32LE(8) * 1e-7,
    height: p.readInt32LE(12) / 1000,
    hMsl: p.readInt32LE(16) / 1000,
    hAcc: p.readUInt32LE(20) / 1000,
    vAcc: p.readUInt32LE(24) / 1000,
  };
}

/** NAV-POSECEF: ECEF position (metres). */
export function decodeNavPosEcef(f: UbxFrame) {
  need(f, 20, 'NAV-POSECEF');
  const p = f.payload;
  return { iTow: p.readUInt32LE(0), ecef: [p.readInt32LE(4) / 100, p.readInt32LE(8) / 100, p.readInt32LE(12) / 100] as [number, number, number], pAcc: p.readUInt32LE(16) / 100 };
}

/** NAV-DOP: dilution of precision values. */
export function decodeNavDop(f: UbxFrame) {
  need(f, 18, 'NAV-DOP');
  const p = f.payload;
  const d = (o: number) => p.readUInt16LE(o) / 100;
  return { iTow: p.readUInt32LE(0), gdop: d(4), pdop: d(6), tdop: d(8), vdop: d(10), hdop: d(12) };
}

/** NAV-TIMEGPS: GPS week, time of week and leap seconds. */
export function decodeNavTimeGps(f: UbxFrame) {
  need(f, 16, 'NAV-TIMEGPS');
  const p = f.payload;
  return { iTow: p.readUInt32LE(0), fTow: p.readInt32LE(4), week: p.readInt16LE(8), leapS: p.readInt8(10), valid: p[11], tAcc: p.readUInt32LE(12) };
}

/** NAV-CLOCK: receiver clock bias (ns) and drift (ns/s) with their accuracy. */
export function decodeNavClock(f: UbxFrame) {
  need(f, 20, 'NAV-CLOCK');
  const p = f.payload;
  return { iTow: p.readUInt32LE(0), biasNs: p.readInt32LE(4), driftNsPerS: p.readInt32LE(8), tAccNs: p.readUInt32LE(12), fAccPsPerS: p.readUInt32LE(16) };
}

export interface UbxSat {
  gnssId: number;
  svId: number;
  cno: number;
  el: number;
  az: number;
  prRes: number;
  used: boolean;
  health: number;
}

/** NAV-SAT: satellites tracked, their C/N0, elevation, azimuth, residual and use in the fix. */
export function decodeNavSat(f: UbxFrame): { iTow: number; sats: UbxSat[] } {
  need(f, 8, 'NAV-SAT');
  const p = f.payload;
  const n = p[5];
  need(f, 8 + 12 * n, 'NAV-SAT');
  const sats: UbxSat[] = [];
  for (let k = 0; k < n; k++) {
    const o = 8 + 12 * k;
    const flags = p.readUInt32LE(o + 8);
    sats.push({ gnssId: p[o], svId: p[o + 1], cno: p[o + 2], el: p.readInt8(o + 3), az: p.readInt16LE(o + 4), prRes: p.readInt16LE(o + 6) / 10, used: (flags & 0x08) !== 0, health: (flags >> 4) & 0x3 });
  }
  return { iTow: p.readUInt32LE(0), sats };
}

/** NAV-SVINFO (older receivers): the same information in the u-blox 6/7 layout, GPS-style numbering. */
export function decodeNavSvInfo(f: UbxFrame): { iTow: number; sats: UbxSat[] } {
  need(f, 8, 'NAV-SVINFO');
  const p = f.payload;
  const n = p[4];
  need(f, 8 + 12 * n, 'NAV-SVINFO');
  const sats: UbxSat[] = [];
  for (let k = 0; k < n; k++) {
    const o = 8 + 12 * k;
    const svid = p[o + 1];
    const flags = p[o + 2];
    // u-blox 6/7 numbering: 1-32 GPS, 120-158 SBAS, 65-96 GLONASS (as NMEA 2.x).
    const gnssId = svid >= 120 && svid <= 158 ? 1 : svid >= 65 && svid <= 96 ? 6 : svid >= 193 && svid <= 197 ? 5 : 0;
    const svId = gnssId === 6 ? svid - 64 : gnssId === 5 ? svid - 192 : svid;
    sats.push({ gnssId, svId, cno: p[o + 4], el: p.readInt8(o + 5), az: p.readInt16LE(o + 6), prRes: p.readInt32LE(o + 8) / 100, used: (flags & 0x01) !== 0, health: flags & 0x10 ? 2 : 1 });
  }
  return { iTow: p.readUInt32LE(0), sats };
}

export interface RawxMeas {
  prMes: number;
  cpMes: number;
  doMes: number;
  gnssId: number;
  svId: number;
  freqId: number;
  cno: number;
  trkStat: number;
}

/** RXM-RAWX: raw pseudorange (m), carrier phase (cycles), Doppler (Hz) and C/N0 per signal. */
export function decodeRxmRawx(f: UbxFrame): { rcvTow: number; week: number; leapS: number; meas: RawxMeas[] } {
  need(f, 16, 'RXM-RAWX');
  const p = f.payload;
  const n = p[11];
  need(f, 16 + 32 * n, 'RXM-RAWX');
  const meas: RawxMeas[] = [];
  for (let k = 0; k < n; k++) {
    const o = 16 + 32 * k;
    meas.push({
      prMes: p.readDoubleLE(o),
      cpMes: p.readDoubleLE(o + 8),
      doMes: p.readFloatLE(o + 16),
      gnssId: p[o + 20],
      svId: p[o + 21],
      freqId: p[o + 23],
      cno: p[o + 26],
      trkStat: p[o + 30],
    });
  }
  return { rcvTow: p.readDoubleLE(0), week: p.readUInt16LE(8), leapS: p.readInt8(10), meas };
}

/** RXM-SFRBX: one broadcast navigation subframe as 32-bit words. */
export function decodeRxmSfrbx(f: UbxFrame): { gnssId: number; svId: number; words: number[] } {
  need(f, 8, 'RXM-SFRBX');
  const p = f.payload;
  const n = p[4];
  need(f, 8 + 4 * n, 'RXM-SFRBX');
  const words: number[] = [];
  for (let k = 0; k < n; k++) words.push(p.readUInt32LE(8 + 4 * k));
  return { gnssId: p[0], svId: p[1], words };
}

/** MON-RF: per RF block jamming state, noise and AGC (AGC as percent of its 0-8191 range). */
export function decodeMonRf(f: UbxFrame): { blocks: { jammingState: number; noisePerMs: number; agcPercent: number; jamInd: number }[] } {
  need(f, 4, 'MON-RF');
  const p = f.payload;
  const n = p[1];
  need(f, 4 + 24 * n, 'MON-RF');
  const blocks = [];
  for (let k = 0; k < n; k++) {
    const o = 4 + 24 * k;
    blocks.push({ jammingState: p[o + 2] & 0x3, noisePerMs: p.readUInt16LE(o + 16), agcPercent: (p.readUInt16LE(o + 18) / 8191) * 100, jamInd: p[o + 20] });
  }
  return { blocks };
}

