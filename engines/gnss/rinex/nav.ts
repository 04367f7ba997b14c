// RINEX 2.x (GPS, GLONASS), 3.x mixed and 4.x navigation files to broadcast ephemerides.
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

/** Systems whose broadcast records the engine decodes; every other system's records are read past. */
const USED = new Set(['G', 'E', 'J', 'R']);
/** Every RINEX 3/4 system letter: GPS, GLONASS, Galileo, BeiDou, QZSS, SBAS, NavIC/IRNSS. */
const SYSTEMS = new Set(['G', 'R', 'E', 'C', 'J', 'S', 'I']);
/** RINEX 4 message types of the used systems that carry the records decoded here (LNAV-style Keplerian, GLONASS FDMA). */
const V4_MESSAGES: Record<string, string[]> = { G: ['LNAV'], J: ['LNAV'], E: ['INAV', 'FNAV'], R: ['FDMA'] };

/**
 * Broadcast orbit lines after a record's first line (RINEX 3.05 and 4.00 tables A6-A14):
 * Keplerian systems 7, SBAS 3, GLONASS 3 before version 3.05 and 4 from it (the fourth line
 * carries status flags, group delay difference and URAI, which single-point does not need).
 */
function orbitLines(sys: string, version: number): number {
  if (sys === 'S') return 3;
  if (sys === 'R') return version >= 3.05 ? 4 : 3;
  return 7;
}

/**
 * Parses a RINEX navigation file's text: RINEX 2 GPS and GLONASS files, RINEX 3 mixed files
 * (GPS, GLONASS, Galileo, BeiDou, QZSS, SBAS, NavIC) and RINEX 4 files (`> EPH` records, and
 * `> ION` GPS Klobuchar records). GPS, QZSS, Galileo and GLONASS ephemerides are decoded; the
 * records of other systems and RINEX 4 messages the engine does not use are read past. Throws
 * GnssInputError, naming the line, on a corrupt or truncated record.
 */
export function parseNav(text: string): NavData {
  const lines = text.split(/\r?\n/);
  const first = lines[0] ?? '';
  if (!first.includes('RINEX VERSION / TYPE')) throw new GnssInputError('RINEX_HEADER', 'not a RINEX file: no "RINEX VERSION / TYPE" line', 1);
  const version = Number.parseFloat(first.slice(0, 9));
  const type = first[20];
  if (!Number.isFinite(version) || (type !== 'N' && type !== 'G')) {
    throw new GnssInputError('RINEX_HEADER', `not a RINEX navigation file (type "${first.slice(20, 40).trim()}")`, 1);
  }
  if (version >= 5) throw new GnssInputError('RINEX_UNSUPPORTED', `RINEX version ${first.slice(0, 9).trim()} is not supported (2.x, 3.x and 4.x are)`, 1);
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
  if (version >= 4) {
    const iono = parseRecords4(lines, i, version, ephemerides);
    alpha ??= iono?.alpha;
    beta ??= iono?.beta;
  } else if (version >= 3) parseRecords3(lines, i, version, ephemerides);
  else parseRecords2(lines, i, defaultSystem, ephemerides);
  const iono: IonoCoefficients | undefined =
    alpha && beta ? { alpha: alpha as IonoCoefficients['alpha'], beta: beta as IonoCoefficients['beta'] } : undefined;
  return { ephemerides, iono, leapSeconds };
}

/** RINEX 2: one system per file, fixed record lengths (GPS 7 orbit lines, GLONASS 3). */
function parseRecords2(lines: string[], start: number, sys: string, out: Ephemeris[]): void {
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const startLine = i + 1;
    const prn = Number.parseInt(line.slice(0, 2), 10);
    const ep = line.slice(2, 22).trim().split(/\s+/).map(Number);
    if (!Number.isFinite(prn) || ep.length !== 6 || ep.some((v) => !Number.isFinite(v))) {
      throw new GnssInputError('RINEX_CORRUPT', `bad navigation record start "${line.slice(0, 22)}"`, startLine);
    }
    const extra = sys === 'R' ? 3 : 7;
    for (let k = 1; k <= extra; k++) {
      if ((lines[i + k] ?? '').trim() === '') throw new GnssInputError('RINEX_TRUNCATED', `navigation record for ${sys}${prn} ends early`, startLine);
    }
    const values = [prn, ...fields(line, 22, 3, startLine)];
    for (let k = 1; k <= extra; k++) values.push(...fields(lines[i + k], 3, 4, i + k + 1));
    i += extra + 1;
    decode(sys, [fullYear(ep[0]), ...ep.slice(1)], values, out);
  }
}

/**
 * RINEX 3: a record is its first line (system letter, PRN, epoch, three clock values) and the
 * broadcast orbit lines after it, each indented by four spaces. The length comes from the
 * system and version; a record of an unused system is skipped by the same count, so the next
 * line must start a record — anything else is reported with its line number.
 */
function parseRecords3(lines: string[], start: number, version: number, out: Ephemeris[]): void {
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    i = parseRecord3(lines, i, version, out);
  }
}

/** Parses (or reads past) the RINEX 3/4-style record starting at line index i; returns the index after it. */
function parseRecord3(lines: string[], i: number, version: number, out: Ephemeris[], end = lines.length): number {
  const line = lines[i];
  const startLine = i + 1;
  const sys = line[0];
  if (!SYSTEMS.has(sys) || !/^\d\d$/.test(line.slice(1, 3).replace(' ', '0'))) {
    throw new GnssInputError('RINEX_CORRUPT', `expected a navigation record starting with a system letter and PRN, got "${line.slice(0, 23).trimEnd()}"`, startLine);
  }
  const extra = orbitLines(sys, version);
  let last = i;
  for (let k = 1; k <= extra; k++) {
    const next = lines[i + k];
    if (i + k >= end || next === undefined || next.trim() === '' || !next.startsWith('    ')) {
      throw new GnssInputError('RINEX_TRUNCATED', `navigation record for ${line.slice(0, 3)} ends early: ${k - 1} of ${extra} orbit lines`, startLine);
    }
    last = i + k;
  }
  if (USED.has(sys)) {
    const ep = line.slice(4, 23).trim().split(/\s+/).map(Number);
    const prn = Number.parseInt(line.slice(1, 3), 10);
    if (!Number.isFinite(prn) || ep.length !== 6 || ep.some((v) => !Number.isFinite(v))) {
      throw new GnssInputError('RINEX_CORRUPT', `bad navigation record start "${line.slice(0, 23)}"`, startLine);
    }
    const values = [prn, ...fields(line, 23, 3, startLine)];
    // GLONASS decodes three orbit lines; the fourth of RINEX 3.05/4 is read past.
    const decoded = sys === 'R' ? 3 : extra;
    for (let k = 1; k <= decoded; k++) values.push(...fields(lines[i + k], 4, 4, i + k + 1));
    decode(sys, ep, values, out);
  }
  return last + 1;
}

/**
 * RINEX 4: every record opens with a `>` line naming its type, system/satellite and message
 * (`> EPH G01 LNAV`, `> ION G LNAV`, `> STO ...`, `> EOP ...`). Ephemerides of the messages in
 * V4_MESSAGES are decoded like RINEX 3 records; GPS Klobuchar coefficients come from ION LNAV
 * records (RINEX 4 has no IONOSPHERIC CORR header line); every other record is read past.
 */
function parseRecords4(lines: string[], start: number, version: number, out: Ephemeris[]): { alpha: number[]; beta: number[] } | undefined {
  let iono: { alpha: number[]; beta: number[] } | undefined;
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    if (line[0] !== '>') throw new GnssInputError('RINEX_CORRUPT', `expected a RINEX 4 record line starting with ">", got "${line.slice(0, 23).trimEnd()}"`, i + 1);
    const [kind, id, message] = line.slice(1).trim().split(/\s+/);
    let end = i + 1;
    while (end < lines.length && lines[end][0] !== '>') end++;
    if (kind === 'EPH' && id && message && V4_MESSAGES[id[0]]?.includes(message)) {
      const next = parseRecord3(lines, i + 1, version, out, end);
      for (let k = next; k < end; k++) {
        if (lines[k].trim() !== '') throw new GnssInputError('RINEX_CORRUPT', `${id} ${message} record has more lines than its format`, k + 1);
      }
    } else if (kind === 'EPH' && (!id || !SYSTEMS.has(id[0]))) {
      throw new GnssInputError('RINEX_CORRUPT', `unknown satellite "${id ?? ''}" in an EPH record`, i + 1);
    } else if (kind === 'ION' && id === 'G' && message === 'LNAV' && !iono) {
      if (end - i < 4) throw new GnssInputError('RINEX_TRUNCATED', 'ION G LNAV record ends early', i + 1);
      const a = fields(lines[i + 1], 23, 3, i + 2);
      const b = fields(lines[i + 2], 4, 4, i + 3);
      const c = fields(lines[i + 3], 4, 1, i + 4);
      iono = { alpha: [...a, b[0]], beta: [b[1], b[2], b[3], c[0]] };
    }
    i = end;
  }
  return iono;
}

function decode(sys: string, epoch: number[], values: number[], out: Ephemeris[]): void {
  const sat = satId(`${sys}${values[0]}`);
  if (sys === 'G' || sys === 'E' || sys === 'J') out.push(kepler(sat, epoch, values));
  else if (sys === 'R') out.push(glonass(sat, epoch, values));
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
