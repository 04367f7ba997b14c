// RINEX 2.x and 3.x observation files to per-epoch L1 measurements (pseudorange, phase, Doppler, C/N0).
import { satId } from '../constants.ts';
import { GnssInputError } from '../errors.ts';
import type { Vec3 } from '../geodesy.ts';
import { fullYear, gpsFromCalendar } from '../time.ts';

export interface ObsHeader {
  version: number;
  markerName: string;
  /** The surveyed (or approximate) marker position from the header, ECEF metres. */
  approxPosition?: Vec3;
  /** Observation types per system letter (RINEX 2 files list one set for all systems). */
  obsTypes: Record<string, string[]>;
  interval?: number;
}

/** One satellite's L1 measurements at an epoch. Phase in cycles, Doppler in Hz, C/N0 in dB-Hz. */
export interface SatObservation {
  sat: string;
  pseudorange?: number;
  carrierPhase?: number;
  doppler?: number;
  cn0?: number;
  /** The observation code the pseudorange came from (`C1`, `P1`, `C1C`). */
  code?: string;
}

export interface ObsEpoch {
  /** Receiver time tag in GPS seconds. */
  time: number;
  sats: SatObservation[];
}

export interface ObsFile {
  header: ObsHeader;
  epochs: ObsEpoch[];
}

/** L1 observation codes in order of preference per system, RINEX 3 then RINEX 2 names. */
const PREFERENCE: Record<string, { range: string[]; phase: string[]; doppler: string[]; snr: string[] }> = {
  G: { range: ['C1C', 'C1W', 'C1P', 'C1X', 'C1', 'P1'], phase: ['L1C', 'L1W', 'L1X', 'L1'], doppler: ['D1C', 'D1W', 'D1X', 'D1'], snr: ['S1C', 'S1W', 'S1X', 'S1'] },
  E: { range: ['C1C', 'C1X', 'C1B', 'C1'], phase: ['L1C', 'L1X', 'L1B', 'L1'], doppler: ['D1C', 'D1X', 'D1B', 'D1'], snr: ['S1C', 'S1X', 'S1B', 'S1'] },
  R: { range: ['C1C', 'C1P', 'C1', 'P1'], phase: ['L1C', 'L1P', 'L1'], doppler: ['D1C', 'D1P', 'D1'], snr: ['S1C', 'S1P', 'S1'] },
};

function parseValue(field: string, lineNo: number): number | undefined {
  const t = field.slice(0, 14).trim();
  if (t === '') return undefined;
  const v = Number(t);
  if (!Number.isFinite(v)) throw new GnssInputError('RINEX_CORRUPT', `observation value "${t}" is not a number`, lineNo);
  return v;
}

function pick(values: Map<string, number>, names: string[]): [string, number] | undefined {
  for (const n of names) {
    const v = values.get(n);
    if (v !== undefined && v !== 0) return [n, v];
  }
  return undefined;
}

function toObservation(sat: string, values: Map<string, number>): SatObservation {
  const pref = PREFERENCE[sat[0]] ?? PREFERENCE.G;
  const range = pick(values, pref.range);
  return {
    sat,
    pseudorange: range?.[1],
    code: range?.[0],
    carrierPhase: pick(values, pref.phase)?.[1],
    doppler: pick(values, pref.doppler)?.[1],
    cn0: pick(values, pref.snr)?.[1],
  };
}

function parseHeader(lines: string[]): { header: ObsHeader; next: number } {
  const first = lines[0] ?? '';
  if (!first.includes('RINEX VERSION / TYPE')) throw new GnssInputError('RINEX_HEADER', 'not a RINEX file: no "RINEX VERSION / TYPE" line', 1);
  const version = Number.parseFloat(first.slice(0, 9));
  if (first[20] !== 'O') throw new GnssInputError('RINEX_HEADER', `not a RINEX observation file (type "${first.slice(20, 40).trim()}")`, 1);
  if (!(version >= 2 && version < 4)) throw new GnssInputError('RINEX_UNSUPPORTED', `RINEX version ${first.slice(0, 9).trim()} is not supported (2.x and 3.x are)`, 1);
  const header: ObsHeader = { version, markerName: '', obsTypes: {} };
  let pending: { sys: string; count: number; types: string[] } | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const label = line.slice(60).trim();
    const lineNo = i + 1;
    if (label === 'END OF HEADER') {
      if (Object.keys(header.obsTypes).length === 0) throw new GnssInputError('RINEX_HEADER', 'observation header lists no observation types', lineNo);
      return { header, next: i + 1 };
    }
    if (label === 'MARKER NAME') header.markerName = line.slice(0, 60).trim();
    else if (label === 'APPROX POSITION XYZ') {
      const xyz = [0, 14, 28].map((c) => Number(line.slice(c, c + 14)));
      if (xyz.every(Number.isFinite) && xyz.some((v) => v !== 0)) header.approxPosition = xyz as Vec3;
    } else if (label === 'INTERVAL') header.interval = Number(line.slice(0, 10));
    else if (label === '# / TYPES OF OBSERV') {
      if (!pending) pending = { sys: '*', count: Number.parseInt(line.slice(0, 6), 10), types: [] };
      for (let k = 0; k < 9; k++) {
        const t = line.slice(10 + 6 * k, 12 + 6 * k).trim();
        if (t) pending.types.push(t);
      }
      if (pending.types.length >= pending.count) {
        for (const sys of ['G', 'E', 'R', 'C', 'J', 'S']) header.obsTypes[sys] = pending.types;
        pending = undefined;
      }
    } else if (label === 'SYS / # / OBS TYPES') {
      if (line[0] !== ' ') pending = { sys: line[0], count: Number.parseInt(line.slice(3, 6), 10), types: [] };
      if (!pending) throw new GnssInputError('RINEX_HEADER', 'SYS / # / OBS TYPES continuation without a system', lineNo);
      for (let k = 0; k < 13; k++) {
        const t = line.slice(7 + 4 * k, 10 + 4 * k).trim();
        if (t) pending.types.push(t);
      }
      if (pending.types.length >= pending.count) {
        header.obsTypes[pending.sys] = pending.types;
        pending = undefined;
      }
    }
  }
  throw new GnssInputError('RINEX_TRUNCATED', 'observation header has no END OF HEADER', lines.length);
}

/**
 * Parses a RINEX observation file's text. Throws GnssInputError on a corrupt header, an epoch
 * line that does not parse, or a file that ends in the middle of an epoch.
 */
export function parseObs(text: string): ObsFile {
  const lines = text.split(/\r?\n/);
  const { header, next } = parseHeader(lines);
  return { header, epochs: header.version < 3 ? parseEpochs2(lines, next, header) : parseEpochs3(lines, next, header) };
}

function truncated(lineNo: number): GnssInputError {
  return new GnssInputError('RINEX_TRUNCATED', 'observation file ends in the middle of an epoch', lineNo);
}

function parseEpochs2(lines: string[], start: number, header: ObsHeader): ObsEpoch[] {
  const types = header.obsTypes.G;
  const perLine = 5;
  const linesPerSat = Math.ceil(types.length / perLine);
  const epochs: ObsEpoch[] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const lineNo = i + 1;
    const flag = Number.parseInt(line.slice(26, 29), 10);
    const nsat = Number.parseInt(line.slice(29, 32), 10);
    if (!Number.isFinite(nsat) || !Number.isFinite(flag)) throw new GnssInputError('RINEX_CORRUPT', `bad epoch line "${line.trimEnd()}"`, lineNo);
    if (flag > 1) {
      // Event records (antenna moved, header lines, external event): nsat counts the lines that follow.
      i += 1 + nsat;
      continue;
    }
    const ep = line.slice(0, 26).trim().split(/\s+/).map(Number);
    if (ep.length !== 6 || ep.some((v) => !Number.isFinite(v))) throw new GnssInputError('RINEX_CORRUPT', `bad epoch time "${line.slice(0, 26).trim()}"`, lineNo);
    const time = gpsFromCalendar(fullYear(ep[0]), ep[1], ep[2], ep[3], ep[4], ep[5]);
    const sats: string[] = [];
    let satLine = line;
    while (sats.length < nsat) {
      const k = sats.length % 12;
      if (k === 0 && sats.length > 0) {
        i++;
        if (i >= lines.length) throw truncated(i + 1);
        satLine = lines[i];
      }
      const token = satLine.slice(32 + 3 * k, 35 + 3 * k);
      if (token.trim() === '') throw new GnssInputError('RINEX_CORRUPT', 'epoch lists fewer satellites than its count', i + 1);
      sats.push(satId(token));
    }
    i++;
    const obs: SatObservation[] = [];
    for (const sat of sats) {
      const values = new Map<string, number>();
      for (let l = 0; l < linesPerSat; l++) {
        if (i >= lines.length || (i === lines.length - 1 && lines[i] === '')) throw truncated(i + 1);
        const text = lines[i];
        for (let k = 0; k < perLine; k++) {
          const idx = l * perLine + k;
          if (idx >= types.length) break;
          const v = parseValue(text.slice(16 * k, 16 * k + 16), i + 1);
          if (v !== undefined) values.set(types[idx], v);
        }
        i++;
      }
      obs.push(toObservation(sat, values));
    }
    epochs.push({ time, sats: obs });
  }
  return epochs;
}

function parseEpochs3(lines: string[], start: number, header: ObsHeader): ObsEpoch[] {
  const epochs: ObsEpoch[] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') {
      i++;
      continue;
    }
    const lineNo = i + 1;
    if (line[0] !== '>') throw new GnssInputError('RINEX_CORRUPT', `expected an epoch line starting with ">"`, lineNo);
    const flag = Number.parseInt(line.slice(29, 32), 10);
    const nsat = Number.parseInt(line.slice(32, 35), 10);
    if (!Number.isFinite(nsat) || !Number.isFinite(flag)) throw new GnssInputError('RINEX_CORRUPT', `bad epoch line "${line.trimEnd()}"`, lineNo);
    i++;
    if (flag > 1) {
      i += nsat;
      continue;
    }
    const ep = line.slice(1, 29).trim().split(/\s+/).map(Number);
    if (ep.length !== 6 || ep.some((v) => !Number.isFinite(v))) throw new GnssInputError('RINEX_CORRUPT', `bad epoch time "${line.slice(1, 29).trim()}"`, lineNo);
    const time = gpsFromCalendar(ep[0], ep[1], ep[2], ep[3], ep[4], ep[5]);
    const obs: SatObservation[] = [];
    for (let s = 0; s < nsat; s++, i++) {
      if (i >= lines.length || (i === lines.length - 1 && lines[i] === '')) throw truncated(i + 1);
      const text = lines[i];
      const sat = satId(text.slice(0, 3));
      const types = header.obsTypes[sat[0]] ?? [];
      const values = new Map<string, number>();
      types.forEach((t, k) => {
        const v = parseValue(text.slice(3 + 16 * k, 19 + 16 * k), i + 1);
        if (v !== undefined) values.set(t, v);
      });
      obs.push(toObservation(sat, values));
    }
    epochs.push({ time, sats: obs });
  }
  return epochs;
}
