// RINEX 2.x, 3.x and 4.x observation files to per-epoch measurements: L1 pseudorange, phase, Doppler, C/N0,
// and the second frequency's code and phase with loss-of-lock flags (for carrier smoothing and slip detection).
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
  /** Loss-of-lock indicator of the L1 phase (RINEX LLI digit; bit 0 set: lock lost since the last epoch). */
  lli?: number;
  /** Second frequency (GPS/GLONASS L2, else L5/E5a/E5b): pseudorange (m), phase (cycles), its LLI, and its band digit. */
  pseudorange2?: number;
  carrierPhase2?: number;
  lli2?: number;
  band2?: '2' | '5' | '7';
  /**
   * GPS L1 P(Y) code (C1W/C1P, RINEX 2 P1) when the receiver reports it beside C/A: the code
   * the broadcast clock's ionosphere-free combination refers to, with L2 P(Y).
   */
  pseudorangeP1?: number;
  /** The observation code of `pseudorange2` (`P2`, `C2W`, `C5Q`...). */
  code2?: string;
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

/**
 * Second-frequency signals in order of preference per system: band digit, code names, phase
 * names (RINEX 3/4 then RINEX 2). GPS L2 P(Y)/L2C first, then L5; Galileo E5a, then E5b;
 * GLONASS G2.
 */
const SECOND: Record<string, { band: '2' | '5' | '7'; range: string[]; phase: string[] }[]> = {
  G: [
    { band: '2', range: ['C2W', 'C2P', 'C2L', 'C2X', 'C2S', 'C2D', 'P2', 'C2'], phase: ['L2W', 'L2P', 'L2L', 'L2X', 'L2S', 'L2D', 'L2'] },
    { band: '5', range: ['C5Q', 'C5X', 'C5I', 'C5'], phase: ['L5Q', 'L5X', 'L5I', 'L5'] },
  ],
  E: [
    { band: '5', range: ['C5Q', 'C5X', 'C5I', 'C5'], phase: ['L5Q', 'L5X', 'L5I', 'L5'] },
    { band: '7', range: ['C7Q', 'C7X', 'C7I', 'C7'], phase: ['L7Q', 'L7X', 'L7I', 'L7'] },
  ],
  R: [{ band: '2', range: ['C2P', 'C2C', 'P2', 'C2'], phase: ['L2P', 'L2C', 'L2'] }],
};

/** One observation value and its loss-of-lock digit (blank reads as 0). */
interface Value {
  v: number;
  lli: number;
}

function parseValue(field: string, lineNo: number): Value | undefined {
  const t = field.slice(0, 14).trim();
  if (t === '') return undefined;
  const v = Number(t);
  if (!Number.isFinite(v)) throw new GnssInputError('RINEX_CORRUPT', `observation value "${t}" is not a number`, lineNo);
  const lli = Number.parseInt(field[14] ?? ' ', 10);
  return { v, lli: Number.isFinite(lli) ? lli : 0 };
}

function pick(values: Map<string, Value>, names: string[]): [string, Value] | undefined {
  for (const n of names) {
    const v = values.get(n);
    if (v !== undefined && v.v !== 0) return [n, v];
  }
  return undefined;
}

function toObservation(sat: string, values: Map<string, Value>): SatObservation {
  const pref = PREFERENCE[sat[0]] ?? PREFERENCE.G;
  const range = pick(values, pref.range);
  const phase = pick(values, pref.phase);
  const o: SatObservation = {
    sat,
    pseudorange: range?.[1].v,
    code: range?.[0],
    carrierPhase: phase?.[1].v,
    doppler: pick(values, pref.doppler)?.[1].v,
    cn0: pick(values, pref.snr)?.[1].v,
  };
  if (phase) o.lli = phase[1].lli;
  if (sat[0] === 'G') {
    const p1 = pick(values, ['C1W', 'C1P', 'P1']);
    if (p1) o.pseudorangeP1 = p1[1].v;
  }
  for (const s of SECOND[sat[0]] ?? []) {
    const p2 = pick(values, s.phase);
    if (!p2) continue;
    o.carrierPhase2 = p2[1].v;
    o.lli2 = p2[1].lli;
    const r2 = pick(values, s.range);
    o.pseudorange2 = r2?.[1].v;
    if (r2) o.code2 = r2[0];
    o.band2 = s.band;
    break;
  }
  return o;
}

function parseHeader(lines: string[]): { header: ObsHeader; next: number } {
  const first = lines[0] ?? '';
  if (!first.includes('RINEX VERSION / TYPE')) throw new GnssInputError('RINEX_HEADER', 'not a RINEX file: no "RINEX VERSION / TYPE" line', 1);
  const version = Number.parseFloat(first.slice(0, 9));
  if (first[20] !== 'O') throw new GnssInputError('RINEX_HEADER', `not a RINEX observation file (type "${first.slice(20, 40).trim()}")`, 1);
  if (!(version >= 2 && version < 5)) throw new GnssInputError('RINEX_UNSUPPORTED', `RINEX version ${first.slice(0, 9).trim()} is not supported (2.x, 3.x and 4.x are)`, 1);
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
      const values = new Map<string, Value>();
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
      const values = new Map<string, Value>();
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
