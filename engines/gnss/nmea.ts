// NMEA 0183 sentences (GGA, RMC, GSA, GSV, GST, ZDA, GLL, VTG) with checksum validation.
import type { Constellation } from './constants.ts';
import { GnssInputError } from './errors.ts';

export interface NmeaTime {
  hour: number;
  minute: number;
  second: number;
}

export type NmeaSentence =
  | { type: 'GGA'; talker: string; time?: NmeaTime; lat?: number; lon?: number; quality: number; satellites: number; hdop?: number; altitudeMsl?: number; geoidSeparation?: number }
  | { type: 'RMC'; talker: string; time?: NmeaTime; valid: boolean; lat?: number; lon?: number; speedMps?: number; trackDeg?: number; date?: { year: number; month: number; day: number }; magneticVariation?: number }
  | { type: 'GSA'; talker: string; mode: number; prns: number[]; pdop?: number; hdop?: number; vdop?: number; systemId?: number }
  | { type: 'GSV'; talker: string; total: number; index: number; inView: number; satellites: { prn: number; el?: number; az?: number; cn0?: number }[]; signalId?: string }
  | { type: 'GST'; talker: string; time?: NmeaTime; rms?: number; sigmaLat?: number; sigmaLon?: number; sigmaAlt?: number }
  | { type: 'ZDA'; talker: string; time?: NmeaTime; date?: { year: number; month: number; day: number } }
  | { type: 'GLL'; talker: string; time?: NmeaTime; lat?: number; lon?: number; valid: boolean }
  | { type: 'VTG'; talker: string; trackDeg?: number; speedMps?: number }
  | { type: 'OTHER'; talker: string; sentence: string };

/** Constellation of a GSV/GSA talker id (`GP`, `GL`, `GA`, `GB`/`BD`, `GQ`); `GN` is combined. */
export function talkerConstellation(talker: string): Constellation | undefined {
  switch (talker) {
    case 'GP':
      return 'GPS';
    case 'GL':
      return 'GLONASS';
    case 'GA':
      return 'Galileo';
    case 'GB':
    case 'BD':
      return 'BeiDou';
    case 'GQ':
      return 'QZSS';
    default:
      return undefined;
  }
}

/** NMEA 4.10 GSA system id to constellation. */
export function systemIdConstellation(id: number | undefined): Constellation | undefined {
  return ({ 1: 'GPS', 2: 'GLONASS', 3: 'Galileo', 4: 'BeiDou', 5: 'QZSS' } as Record<number, Constellation>)[id ?? 0];
}

function optNum(s: string | undefined): number | undefined {
  if (s === undefined || s.trim() === '') return undefined;
  const v = Number(s);
  return Number.isFinite(v) ? v : undefined;
}

function parseTime(s: string | undefined): NmeaTime | undefined {
  if (!s || s.length < 6) return undefined;
  const hour = Number(s.slice(0, 2));
  const minute = Number(s.slice(2, 4));
  const second = Number(s.slice(4));
  if (![hour, minute, second].every(Number.isFinite) || hour > 23 || minute > 59 || second >= 61) return undefined;
  return { hour, minute, second };
}

/** ddmm.mmmm (or dddmm.mmmm) with hemisphere to signed degrees. */
function parseCoord(value: string | undefined, hemi: string | undefined, degDigits: number): number | undefined {
  if (!value || !hemi) return undefined;
  const deg = Number(value.slice(0, degDigits));
  const min = Number(value.slice(degDigits));
  if (!Number.isFinite(deg) || !Number.isFinite(min) || min >= 60) return undefined;
  const v = deg + min / 60;
  return hemi === 'S' || hemi === 'W' ? -v : v;
}

function parseDate(ddmmyy: string | undefined): { year: number; month: number; day: number } | undefined {
  if (!ddmmyy || ddmmyy.length !== 6) return undefined;
  const day = Number(ddmmyy.slice(0, 2));
  const month = Number(ddmmyy.slice(2, 4));
  const yy = Number(ddmmyy.slice(4, 6));
  if (![day, month, yy].every(Number.isFinite) || month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  return { year: yy < 80 ? 2000 + yy : 1900 + yy, month, day };
}

const KNOTS = 1852 / 3600;

/**
 * Parses one sentence (`$GPGGA,...*hh`). A missing or wrong checksum, or a line that is not
 * NMEA, throws GnssInputError (NMEA_CHECKSUM / NMEA_CORRUPT): a receiver's data is never
 * used when its integrity check fails.
 */
export function parseNmea(line: string): NmeaSentence {
  const text = line.trim();
  const m = /^[$!]([A-Z0-9]{2})([A-Z0-9]{3,}),(.*)\*([0-9A-Fa-f]{2})$/.exec(text);
  if (!m) {
    if (/^[$!][A-Z]{5}/.test(text) && !text.includes('*')) throw new GnssInputError('NMEA_CHECKSUM', `NMEA sentence without checksum: ${text.slice(0, 20)}`);
    throw new GnssInputError('NMEA_CORRUPT', `not an NMEA sentence: ${text.slice(0, 20)}`);
  }
  let sum = 0;
  const body = text.slice(1, text.lastIndexOf('*'));
  for (let i = 0; i < body.length; i++) sum ^= body.charCodeAt(i);
  const expected = Number.parseInt(m[4], 16);
  if (sum !== expected) {
    throw new GnssInputError('NMEA_CHECKSUM', `NMEA checksum mismatch in ${m[1]}${m[2]}: computed ${sum.toString(16).toUpperCase().padStart(2, '0')}, sentence says ${m[4].toUpperCase()}`);
  }
  const talker = m[1];
  const f = m[3].split(',');
  switch (m[2]) {
    case 'GGA':
      return {
        type: 'GGA',
        talker,
        time: parseTime(f[0]),
        lat: parseCoord(f[1], f[2], 2),
        lon: parseCoord(f[3], f[4], 3),
        quality: optNum(f[5]) ?? 0,
        satellites: optNum(f[6]) ?? 0,
        hdop: optNum(f[7]),
        altitudeMsl: optNum(f[8]),
        geoidSeparation: optNum(f[10]),
      };
    case 'RMC': {
      const speed = optNum(f[6]);
      const mv = optNum(f[9]);
      return {
        type: 'RMC',
        talker,
        time: parseTime(f[0]),
        valid: f[1] === 'A',
        lat: parseCoord(f[2], f[3], 2),
        lon: parseCoord(f[4], f[5], 3),
        speedMps: speed === undefined ? undefined : speed * KNOTS,
        trackDeg: optNum(f[7]),
        date: parseDate(f[8]),
        magneticVariation: mv === undefined ? undefined : f[10] === 'W' ? -mv : mv,
      };
    }
    case 'GSA':
      return {
        type: 'GSA',
        talker,
        mode: optNum(f[1]) ?? 1,
        prns: f.slice(2, 14).map(optNum).filter((v): v is number => v !== undefined),
        pdop: optNum(f[14]),
        hdop: optNum(f[15]),
        vdop: optNum(f[16]),
        systemId: optNum(f[17]),
      };
    case 'GSV': {
      const satellites: { prn: number; el?: number; az?: number; cn0?: number }[] = [];
      const blocks = f.slice(3);
      // NMEA 4.10 appends a signal id after the satellite blocks of four fields.
      const signalId = blocks.length % 4 === 1 ? blocks.pop() : undefined;
      for (let k = 0; k < blocks.length; k += 4) {
        const prn = optNum(blocks[k]);
        if (prn !== undefined) satellites.push({ prn, el: optNum(blocks[k + 1]), az: optNum(blocks[k + 2]), cn0: optNum(blocks[k + 3]) });
      }
      return { type: 'GSV', talker, total: optNum(f[0]) ?? 1, index: optNum(f[1]) ?? 1, inView: optNum(f[2]) ?? 0, satellites, signalId };
    }
    case 'GST':
      return { type: 'GST', talker, time: parseTime(f[0]), rms: optNum(f[1]), sigmaLat: optNum(f[5]), sigmaLon: optNum(f[6]), sigmaAlt: optNum(f[7]) };
    case 'ZDA': {
      const day = optNum(f[1]);
      const month = optNum(f[2]);
      const year = optNum(f[3]);
      return {
        type: 'ZDA',
        talker,
        time: parseTime(f[0]),
        date: day !== undefined && month !== undefined && year !== undefined ? { year, month, day } : undefined,
      };
    }
    case 'GLL':
      return { type: 'GLL', talker, lat: parseCoord(f[0], f[1], 2), lon: parseCoord(f[2], f[3], 3), time: parseTime(f[4]), valid: f[5] === 'A' };
    case 'VTG': {
      const kmh = optNum(f[6]);
      return { type: 'VTG', talker, trackDeg: optNum(f[0]), speedMps: kmh === undefined ? undefined : kmh / 3.6 };
    }
    default:
      return { type: 'OTHER', talker, sentence: m[2] };
  }
}
