// RINEX 2.x (GPS, GLONASS) and 3.x/4-style mixed navigation files to broadcast ephemerides.
import { satId } from '../constants.ts';
import { GnssInputError } from '../errors.ts';
import type { Ephemeris, GlonassEphemeris, IonoCoefficients, KeplerEphemeris, NavData } from '../ephemeris/types.ts';
import { fullYear, gpsFromCalendar, utcToGps, WEEK_SECONDS } from '../time.ts';

/** Reads a Fortran D/E-format number from a fixed-width field; blank reads as 0. */
function num(text: string, lineNo: number): number {
  const t = text.trim().replace(/[dD]/, 'E');
  if (t === '') return 0;
  const v = Number(t);
  if (!Number.isFinite(v)) throw new GnssInputError('RINEX_CORRUPT', `navigation value "${t}" is not a number`, lineNo);
  return v;
}

function fields(line: string, start: number, count: number, lineNo: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push(num(line.slice(start + 19 * i, start + 19 * (i + 1)), lineNo));
  return out;
}

/** Parses a RINEX navigation file's text. Throws GnssInputError on a corrupt or truncated file. */
export function parseNav(text: string): NavData {
  const lines = text.split(/\r?\n/);
  const first = lines[0] ?? '';
  if (!first.includes('RINEX VERSION / TYPE')) throw new GnssInputError('RINEX_HEADER', 'not a RINEX file: no "RINEX VERSION / TYPE" line', 1);
  const version = Number.parseFloat(first.slice(0, 9));
  const type = first[20];
  if (!Number.isFinite(version) || (type !== 'N' && type !== 'G')) {
    throw new GnssInputError('RINEX_HEADER', `not a RINEX navigation file (type "${first.slice(20, 40).trim()}")`, 1);
  }
  const defaultSystem = version < 3 ? (type === 'G' ? 'R' : 'G') : 'G';
  let i = 1;
  let alpha: number[] | undefined;
  let beta: number[] | undefined;
  let leapSeconds: number | undefined;
  for (; i < lines.length; i++) {
    const line = lines[i];
    const label = line.slice(60).trim();
    if (label === 'END OF HEADER') break;
    const lineNo = i + 1;
    if (label === 'ION ALPHA') alpha = [2, 14, 26, 38].map((c) => num(line.slice(c, c + 12), lineNo));
    else if (label === 'ION BETA') beta = [2, 14, 26, 38].map((c) => num(line.slice(c, c + 12), lineNo));
    else if (label === 'IONOSPHERIC CORR') {
      const kind = line.slice(0, 4);
      const vals = [5, 17, 29, 41].map((c) => num(line.slice(c, c + 12), lineNo));
      if (kind === 'GPSA') alpha = vals;
      if (kind === 'GPSB') beta = vals;
    } else if (label === 'LEAP SECONDS') leapSeconds = Number.parseInt(line.slice(0, 6), 10);
  }
  if (i >= lines.length) throw new GnssInputError('RINEX_TRUNCATED', 'navigation header has no END OF HEADER', lines.length);
  i++;
  const ephemerides: Ephemeris[] = [];
  const indent = version < 3 ? 3 : 4;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const startLine = i + 1;
    let sys: string;
    let epoch: number[];
    let values: number[];
    if (version < 3) {
      sys = defaultSystem;
      const prn = Number.parseInt(line.slice(0, 2), 10);
      const ep = line.slice(2, 22).trim().split(/\s+/).map(Number);
      if (!Number.isFinite(prn) || ep.length !== 6 || ep.some((v) => !Number.isFinite(v))) {
        throw new GnssInputError('RINEX_CORRUPT', `bad navigation record start "${line.slice(0, 22)}"`, startLine);
      }
      epoch = [fullYear(ep[0]), ...ep.slice(1)];
      values = [prn, ...fields(line, 22, 3, startLine)];
    } else {
      sys = line[0];
      const ep = line.slice(4, 23).trim().split(/\s+/).map(Number);
      const prn = Number.parseInt(line.slice(1, 3), 10);
      if (!Number.isFinite(prn) || ep.length !== 6 || ep.some((v) => !Number.isFinite(v))) {
        throw new GnssInputError('RINEX_CORRUPT', `bad navigation record start "${line.slice(0, 23)}"`, startLine);
      }
      epoch = ep;
      values = [prn, ...fields(line, 23, 3, startLine)];
    }
    const extraLines = sys === 'R' || sys === 'S' ? 3 : 7;
    for (let k = 1; k <= extraLines; k++) {
      if ((lines[i + k] ?? '').trim() === '') {
        throw new GnssInputError('RINEX_TRUNCATED', `navigation record for ${sys}${values[0]} ends early`, startLine);
      }
    }
    for (let k = 1; k <= extraLines; k++) values.push(...fields(lines[i + k], indent, 4, i + k + 1));
    i += extraLines + 1;
    const sat = satId(`${sys}${values[0]}`);
    if (sys === 'G' || sys === 'E' || sys === 'J') ephemerides.push(kepler(sat, epoch, values));
    else if (sys === 'R') ephemerides.push(glonass(sat, epoch, values));
  }
  const iono: IonoCoefficients | undefined =
    alpha && beta ? { alpha: alpha as IonoCoefficients['alpha'], beta: beta as IonoCoefficients['beta'] } : undefined;
  return { ephemerides, iono, leapSeconds };
}

/** Maps the 29 values of a Keplerian record (after the PRN) onto the ephemeris fields. */
function kepler(sat: string, epoch: number[], v: number[]): KeplerEphemeris {
  const toc = gpsFromCalendar(epoch[0], epoch[1], epoch[2], epoch[3], epoch[4], epoch[5]);
  // v[1..3] clock, then 4 values per broadcast-orbit line from v[4].
  const week = v[22];
  const toeSow = v[12];
  let toe = week * WEEK_SECONDS + toeSow;
  // Week and toe can straddle a week boundary relative to toc; keep toe within half a week of toc.
  if (toe - toc > WEEK_SECONDS / 2) toe -= WEEK_SECONDS;
  else if (toc - toe > WEEK_SECONDS / 2) toe += WEEK_SECONDS;
  return {
    kind: 'kepler',
    sat,
    toc,
    af0: v[1],
    af1: v[2],
    af2: v[3],
    iode: v[4],
    crs: v[5],
    deltaN: v[6],
    m0: v[7],
    cuc: v[8],
    e: v[9],
    cus: v[10],
    sqrtA: v[11],
    toe,
    cic: v[13],
    omega0: v[14],
    cis: v[15],
    i0: v[16],
    crc: v[17],
    omega: v[18],
    omegaDot: v[19],
    idot: v[20],
    accuracy: v[24],
    health: v[25],
    // GPS: TGD; Galileo: BGD E5b/E1 (the I/NAV single-frequency group delay).
    tgd: sat[0] === 'E' ? v[27] : v[26],
  };
}

/** GLONASS records carry the epoch in UTC and positions in km. */
function glonass(sat: string, epoch: number[], v: number[]): GlonassEphemeris {
  const toe = utcToGps(Date.UTC(epoch[0], epoch[1] - 1, epoch[2], epoch[3], epoch[4], 0) + epoch[5] * 1000);
  return {
    kind: 'glonass',
    sat,
    toe,
    clockBias: v[1],
    gammaN: v[2],
    pos: [v[4] * 1e3, v[8] * 1e3, v[12] * 1e3],
    vel: [v[5] * 1e3, v[9] * 1e3, v[13] * 1e3],
    acc: [v[6] * 1e3, v[10] * 1e3, v[14] * 1e3],
    health: v[7],
    frequencyNumber: v[11],
  };
}
