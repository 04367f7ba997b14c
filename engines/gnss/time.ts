// Time scales: UTC, TAI and GPS time (week and time of week), leap seconds and week rollovers.
//
// GPS time is carried through the engine as seconds since the GPS epoch
// (1980-01-06T00:00:00 UTC, when GPS time equalled UTC). GPS time has no leap seconds:
// GPS - UTC grows by one at each leap second, and TAI - GPS is always 19 s.

/** Seconds in a GPS week. */
export const WEEK_SECONDS = 604800;
/** Unix time (ms) of the GPS epoch. */
export const GPS_EPOCH_UNIX_MS = Date.UTC(1980, 0, 6);
/** TAI - GPS, seconds (fixed by definition). */
export const TAI_MINUS_GPS = 19;

/**
 * TAI - UTC from each date (UTC midnight) on, as published in IERS Bulletin C. A leap second
 * is inserted as 23:59:60 on the day before each date.
 */
export const LEAP_SECONDS: ReadonlyArray<{ date: string; taiMinusUtc: number }> = [
  { date: '1972-01-01', taiMinusUtc: 10 },
  { date: '1972-07-01', taiMinusUtc: 11 },
  { date: '1973-01-01', taiMinusUtc: 12 },
  { date: '1974-01-01', taiMinusUtc: 13 },
  { date: '1975-01-01', taiMinusUtc: 14 },
  { date: '1976-01-01', taiMinusUtc: 15 },
  { date: '1977-01-01', taiMinusUtc: 16 },
  { date: '1978-01-01', taiMinusUtc: 17 },
  { date: '1979-01-01', taiMinusUtc: 18 },
  { date: '1980-01-01', taiMinusUtc: 19 },
  { date: '1981-07-01', taiMinusUtc: 20 },
  { date: '1982-07-01', taiMinusUtc: 21 },
  { date: '1983-07-01', taiMinusUtc: 22 },
  { date: '1985-07-01', taiMinusUtc: 23 },
  { date: '1988-01-01', taiMinusUtc: 24 },
  { date: '1990-01-01', taiMinusUtc: 25 },
  { date: '1991-01-01', taiMinusUtc: 26 },
  { date: '1992-07-01', taiMinusUtc: 27 },
  { date: '1993-07-01', taiMinusUtc: 28 },
  { date: '1994-07-01', taiMinusUtc: 29 },
  { date: '1996-01-01', taiMinusUtc: 30 },
  { date: '1997-07-01', taiMinusUtc: 31 },
  { date: '1999-01-01', taiMinusUtc: 32 },
  { date: '2006-01-01', taiMinusUtc: 33 },
  { date: '2009-01-01', taiMinusUtc: 34 },
  { date: '2012-07-01', taiMinusUtc: 35 },
  { date: '2015-07-01', taiMinusUtc: 36 },
  { date: '2017-01-01', taiMinusUtc: 37 },
];

const LEAP_UNIX_MS = LEAP_SECONDS.map((l) => ({ ms: Date.parse(`${l.date}T00:00:00Z`), tai: l.taiMinusUtc }));

/** TAI - UTC (s) in force at a UTC instant given as Unix milliseconds (0 before 1972). */
export function taiMinusUtc(unixMs: number): number {
  let value = 0;
  for (const l of LEAP_UNIX_MS) {
    if (unixMs >= l.ms) value = l.tai;
    else break;
  }
  return value;
}

/** GPS - UTC (s) in force at a UTC instant (18 s since 2017-01-01). */
export function gpsMinusUtc(unixMs: number): number {
  return taiMinusUtc(unixMs) - TAI_MINUS_GPS;
}

/** GPS seconds since the GPS epoch for a UTC instant (Unix ms). */
export function utcToGps(unixMs: number): number {
  return (unixMs - GPS_EPOCH_UNIX_MS) / 1000 + gpsMinusUtc(unixMs);
}

/** A UTC instant broken into calendar fields; `second` reaches 60 during an inserted leap second. */
export interface UtcParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Leap second boundaries expressed in GPS seconds: the first GPS second of each new offset. */
const LEAP_GPS = LEAP_UNIX_MS.filter((l) => l.tai >= 19).map((l) => ({
  gps: (l.ms - GPS_EPOCH_UNIX_MS) / 1000 + (l.tai - TAI_MINUS_GPS),
  gpsMinusUtc: l.tai - TAI_MINUS_GPS,
}));

/** GPS - UTC (s) in force at a GPS instant. */
export function gpsMinusUtcAtGps(gps: number): number {
  let value = 0;
  for (const l of LEAP_GPS) {
    if (gps >= l.gps) value = l.gpsMinusUtc;
    else break;
  }
  return value;
}

/**
 * UTC calendar fields of a GPS instant. During an inserted leap second (the GPS second just
 * before a new offset takes effect) the result reads 23:59:60, which Unix time cannot hold.
 */
export function gpsToUtcParts(gps: number): UtcParts {
  const leapNow = gpsMinusUtcAtGps(gps);
  const inLeap = gpsMinusUtcAtGps(gps + 1) > leapNow;
  const unixMs = GPS_EPOCH_UNIX_MS + (gps - leapNow) * 1000;
  const d = new Date(inLeap ? unixMs - 1000 : unixMs);
  const frac = gps - Math.floor(gps);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: inLeap ? 60 + frac : d.getUTCSeconds() + frac,
  };
}

/** Unix milliseconds of a GPS instant (a leap second maps onto the following 00:00:00). */
export function gpsToUnixMs(gps: number): number {
  return GPS_EPOCH_UNIX_MS + (gps - gpsMinusUtcAtGps(gps)) * 1000;
}

/** ISO 8601 UTC text of a GPS instant with millisecond precision; keeps 23:59:60 of a leap second. */
export function gpsToIso(gps: number): string {
  const p = gpsToUtcParts(gps);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const whole = Math.floor(p.second + 1e-9);
  const ms = Math.min(999, Math.round((p.second - whole) * 1000));
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(whole)}.${pad(ms, 3)}Z`;
}

/** TAI seconds since the GPS epoch's TAI reading (TAI = GPS + 19 s). */
export function gpsToTai(gps: number): number {
  return gps + TAI_MINUS_GPS;
}

/** TAI calendar reading of a GPS instant, ISO 8601 style with a ` TAI` suffix (TAI has no leap seconds). */
export function gpsToTaiIso(gps: number): string {
  return `${new Date(GPS_EPOCH_UNIX_MS + (gps + TAI_MINUS_GPS) * 1000).toISOString().slice(0, 23)} TAI`;
}

/** GPS week number (full, not modulo 1024) and time of week of a GPS instant. */
export function gpsWeekTow(gps: number): { week: number; tow: number } {
  const week = Math.floor(gps / WEEK_SECONDS);
  return { week, tow: gps - week * WEEK_SECONDS };
}

/** GPS seconds of a full week number and time of week. */
export function fromWeekTow(week: number, tow: number): number {
  return week * WEEK_SECONDS + tow;
}

/**
 * Resolves a truncated week number (10 bits in the legacy navigation message, rolling over
 * 1999-08-22 and 2019-04-06; 13 bits in CNAV) to the full week nearest a reference instant.
 */
export function resolveWeekRollover(truncatedWeek: number, referenceGps: number, bits = 10): number {
  const modulus = 2 ** bits;
  const refWeek = Math.floor(referenceGps / WEEK_SECONDS);
  const base = refWeek - (((refWeek % modulus) + modulus) % modulus);
  let best = base + truncatedWeek;
  for (const candidate of [best - modulus, best + modulus]) {
    if (Math.abs(candidate - refWeek) < Math.abs(best - refWeek)) best = candidate;
  }
  return best;
}

/** GPS seconds of a calendar date and time read in GPS time (as RINEX epochs are). */
export function gpsFromCalendar(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  return (Date.UTC(year, month - 1, day, hour, minute, 0) - GPS_EPOCH_UNIX_MS) / 1000 + second;
}

/** Two-digit RINEX 2 year to four digits (80-99 -> 19xx, 00-79 -> 20xx). */
export function fullYear(yy: number): number {
  if (yy >= 100) return yy;
  return yy < 80 ? 2000 + yy : 1900 + yy;
}
