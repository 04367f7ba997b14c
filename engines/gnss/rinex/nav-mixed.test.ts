// Mixed RINEX 3.05 and RINEX 4 navigation files. The GPS records are the real ones of the IGS
// broadcast file brdc1180.21n (fixtures/gnss/rinex, 2021-04-28) rewritten in the RINEX 3.05 and
// 4.00 layouts; the GLONASS, BeiDou, SBAS, NavIC and RINEX 4 CNAV/ION/STO/EOP records are
// synthetic: laid out as the RINEX 3.05 and 4.00 format tables describe, with plausible values.
// The last test reads two real mixed files (fixtures/gnss/rinex, from gnss_lib_py, MIT).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GnssInputError } from '../errors.ts';
import { solveFile } from '../solve.ts';
import { rinexText } from '../testing/fixtures.ts';
import { parseNav } from './nav.ts';
import { parseObs } from './obs.ts';

/** A value in the D19.12 layout of RINEX 3/4 (E exponent, two digits). */
function f19(v: number): string {
  const [m, e] = v.toExponential(12).split('e');
  const exp = Number(e);
  return `${m}E${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`.padStart(19);
}

/** A RINEX 3/4 record: first line (system+PRN, epoch, three values), then orbit lines of four values. */
function record(sat: string, epoch: string, first: number[], orbit: number[][]): string[] {
  return [`${sat} ${epoch}${first.map(f19).join('')}`, ...orbit.map((row) => `    ${row.map(f19).join('')}`)];
}

const GLO_ORBIT = [
  [1.234567890123e4, 1.2345678, 0, 0],
  [-1.234567890123e4, 2.2345678, 0, 1],
  [1.834567890123e4, 0.32345678, 0, 0],
];
const glonass = (version: 3.04 | 3.05) =>
  record('R05', '2021 04 28 19 15 00', [-1.234567890123e-5, 0, 6.84e4], version === 3.05 ? [...GLO_ORBIT, [0, 0, 2, 0]] : GLO_ORBIT);
const beidou = record('C06', '2021 04 28 19 00 00', [1e-4, 1e-11, 0], Array.from({ length: 7 }, (_, k) => [k + 1, 0.5, -0.25, 1e-9]));
const sbas = record('S24', '2021 04 28 19 00 32', [1e-8, 0, 518400], [[1e4, 0.1, 0, 0], [-2e4, 0.2, 0, 1], [3e4, 0.3, 0, 0]]);
const navic = record('I02', '2021 04 28 19 00 00', [1e-5, 0, 0], Array.from({ length: 7 }, () => [1, 2, 3, 4]));

/** The GPS records of brdc1180.21n in the RINEX 3 layout (four-space orbit lines, four-digit year). */
function gpsRecords3(): string[] {
  const lines = rinexText('brdc1180.21n').split(/\r?\n/);
  const body = lines.slice(lines.findIndex((l) => l.includes('END OF HEADER')) + 1).filter((l) => l.trim() !== '');
  const out: string[] = [];
  for (let i = 0; i + 7 < body.length; i += 8) {
    const head = body[i];
    const prn = head.slice(0, 2).trim().padStart(2, '0');
    const [yy, mo, dd, hh, mi, ss] = head.slice(2, 22).trim().split(/\s+/).map(Number);
    const epoch = `${2000 + yy} ${[mo, dd, hh, mi, Math.round(ss)].map((v) => String(v).padStart(2, '0')).join(' ')}`;
    out.push(`G${prn} ${epoch}${head.slice(22).replace(/D/g, 'E')}`);
    for (let k = 1; k <= 7; k++) out.push(` ${body[i + k].replace(/D/g, 'E')}`);
  }
  return out;
}

const HEADER305 = [
  '     3.05           N: GNSS NAV DATA    M: MIXED            RINEX VERSION / TYPE',
  'GPSA   9.3132E-09  1.4901E-08 -5.9605E-08 -1.1921E-07       IONOSPHERIC CORR',
  'GPSB   8.8064E+04  4.9152E+04 -1.3107E+05 -3.2768E+05       IONOSPHERIC CORR',
  'BDSA   1.1176E-08  2.9802E-08 -4.1723E-07  6.5565E-07       IONOSPHERIC CORR',
  '    18    18  2185     7                                    LEAP SECONDS',
  '                                                            END OF HEADER',
];

/** A 3.05 mixed file: every GPS record of the day with GLONASS (four orbit lines), BeiDou, SBAS and NavIC records between them. */
function mixed305(): string {
  const gps = gpsRecords3();
  const out = [...HEADER305];
  for (let i = 0; i < gps.length; i += 8) {
    out.push(...gps.slice(i, i + 8));
    if (i === 0) out.push(...glonass(3.05), ...beidou, ...sbas, ...navic);
  }
  return `${out.join('\n')}\n`;
}

test('a mixed RINEX 3.05 navigation file: GLONASS with its fourth orbit line, BeiDou, SBAS and NavIC read past', () => {
  const v2 = parseNav(rinexText('brdc1180.21n'));
  const nav = parseNav(mixed305());
  const gps = nav.ephemerides.filter((e) => e.sat[0] === 'G');
  assert.equal(gps.length, v2.ephemerides.length);
  assert.deepEqual(gps[5], v2.ephemerides[5]);
  const r05 = nav.ephemerides.find((e) => e.sat === 'R05');
  assert.ok(r05 && r05.kind === 'glonass');
  assert.equal(r05.frequencyNumber, 1);
  assert.equal(r05.pos[2], 1.834567890123e7);
  assert.equal(nav.ephemerides.filter((e) => e.sat[0] === 'C' || e.sat[0] === 'S' || e.sat[0] === 'I').length, 0);
  assert.equal(nav.iono?.alpha[0], 9.3132e-9);
});

test('gnss solve on the mixed 3.05 file gives the same positions as on the GPS-only RINEX 2 file', () => {
  const obs = parseObs(rinexText('slac1180.21o'));
  const a = solveFile(obs, parseNav(rinexText('brdc1180.21n')), {}, {}, { mode: 'spp' });
  const b = solveFile(obs, parseNav(mixed305()), {}, {}, { mode: 'spp' });
  assert.equal(b.summary.fixes, obs.epochs.length);
  assert.deepEqual(b.summary, a.summary);
});

test('a RINEX 3.04 GLONASS record has three orbit lines', () => {
  const text = [...HEADER305.map((l) => l.replace('3.05', '3.04')), ...glonass(3.04), ...gpsRecords3().slice(0, 8)].join('\n');
  const nav = parseNav(text);
  assert.deepEqual(nav.ephemerides.map((e) => e.sat), ['R05', 'G06']);
});

test('a 3.05 GLONASS record missing its fourth line, and a line that starts no record, name their lines', () => {
  const short = [...HEADER305, ...glonass(3.04), ...gpsRecords3().slice(0, 8)].join('\n');
  assert.throws(
    () => parseNav(short),
    (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_TRUNCATED' && e.line === HEADER305.length + 1 && /R05/.test(e.message),
  );
  const gps = gpsRecords3().slice(0, 16);
  const garbage = [...HEADER305, ...gps.slice(0, 8), 'this is not a navigation record', ...gps.slice(8)].join('\n');
  assert.throws(() => parseNav(garbage), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_CORRUPT' && e.line === HEADER305.length + 9);
  const badNumber = [...HEADER305, ...gps.slice(0, 3), gps[3].replace('E', 'X'), ...gps.slice(4, 8)].join('\n');
  assert.throws(() => parseNav(badNumber), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_CORRUPT' && e.line === HEADER305.length + 4);
});

test('a RINEX 4 navigation file: LNAV and FDMA ephemerides and the ION LNAV Klobuchar record; CNAV, D1, STO and EOP read past', () => {
  const gps = gpsRecords3().slice(0, 8);
  const text = [
    '     4.00           N: GNSS NAV DATA    M: MIXED            RINEX VERSION / TYPE',
    '    18    18  2185     7                                    LEAP SECONDS',
    '                                                            END OF HEADER',
    '> EPH G06 LNAV',
    ...gps,
    '> EPH G06 CNAV',
    ...record('G06', '2021 04 28 18 00 00', [1e-5, 0, 0], Array.from({ length: 8 }, () => [1, 2, 3, 4])),
    '> EPH R05 FDMA',
    ...glonass(3.05),
    '> EPH C06 D1',
    ...beidou,
    '> STO GP GPUT',
    '    2021 04 28 00 00 00 GPUT',
    `    ${f19(503808)}${f19(-2.7939677238e-9)}${f19(-2.6645352591e-15)}`,
    '> EOP GP',
    `    2021 04 28 00 00 00${f19(1e-3)}${f19(0)}${f19(0)}`,
    `    ${f19(1e-3)}${f19(0)}${f19(0)}`,
    `    ${f19(503808)}${f19(0.1)}${f19(0)}${f19(0)}`,
    '> ION G LNAV',
    `    2021 04 28 00 00 00${f19(9.3132e-9)}${f19(1.4901e-8)}${f19(-5.9605e-8)}`,
    `    ${f19(-1.1921e-7)}${f19(8.8064e4)}${f19(4.9152e4)}${f19(-1.3107e5)}`,
    `    ${f19(-3.2768e5)}${f19(1)}`,
    '',
  ].join('\n');
  const nav = parseNav(text);
  assert.deepEqual(nav.ephemerides.map((e) => e.sat), ['G06', 'R05']);
  assert.deepEqual(nav.ephemerides[0], parseNav(rinexText('brdc1180.21n')).ephemerides[0]);
  assert.deepEqual(nav.iono?.alpha, [9.3132e-9, 1.4901e-8, -5.9605e-8, -1.1921e-7]);
  assert.deepEqual(nav.iono?.beta, [8.8064e4, 4.9152e4, -1.3107e5, -3.2768e5]);
  // An LNAV record with a line too many is corrupt, and says where.
  const extra = text.replace('> EPH G06 CNAV', `    ${f19(1)}\n> EPH G06 CNAV`);
  assert.throws(() => parseNav(extra), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_CORRUPT' && e.line === 13);
});

/** An observation in the F14.3 layout with its loss-of-lock digit and a blank signal strength. */
const obsField = (v: number, lli = ' ') => `${v.toFixed(3).padStart(14)}${lli} `;

test('RINEX 4 observation files are read like RINEX 3, with the second frequency and loss-of-lock flags', () => {
  const text = [
    '     4.01           OBSERVATION DATA    M                   RINEX VERSION / TYPE',
    'TEST                                                        MARKER NAME',
    'G    6 C1C L1C D1C S1C C2W L2W                              SYS / # / OBS TYPES',
    'E    4 C1C L1C C5Q L5Q                                      SYS / # / OBS TYPES',
    '                                                            END OF HEADER',
    '> 2021 04 28 19 00  0.0000000  0  2',
    `G01${obsField(21565852.19)}${obsField(113327853.112, '1')}${obsField(-523.123)}${obsField(45)}${obsField(21565856.5)}${obsField(88307401.25, '4')}`,
    `E07${obsField(23997373.68)}${obsField(126106956.825)}${obsField(23997376.1)}${obsField(94170889.157, '1')}`,
    '',
  ].join('\n');
  const [g01, e07] = parseObs(text).epochs[0].sats;
  assert.equal(g01.lli, 1);
  assert.equal(g01.pseudorange2, 21565856.5);
  assert.equal(g01.carrierPhase2, 88307401.25);
  assert.equal(g01.lli2, 4);
  assert.equal(g01.band2, '2');
  assert.equal(e07.band2, '5');
  assert.equal(e07.lli2, 1);
});

test('real mixed navigation files of 2023-03-14: BKG 3.05 (GLONASS four orbit lines, BeiDou with blank fields) and DLR 3.04 (every system)', async () => {
  const { satelliteState } = await import('../ephemeris/select.ts');
  const count = (n: ReturnType<typeof parseNav>) => {
    const c: Record<string, number> = {};
    for (const e of n.ephemerides) c[e.sat[0]] = (c[e.sat[0]] ?? 0) + 1;
    return c;
  };
  // A file whose GLONASS records have the 3.05 fourth line stopped the reader before at line 239.
  const wrd = parseNav(rinexText('BRDC00WRD_S_20230730000_01D_MN.rnx'));
  assert.deepEqual(count(wrd), { E: 38, R: 6, J: 4, G: 4 });
  const dlr = parseNav(rinexText('BRDM00DLR_S_20230730000_01D_MN.rnx'));
  assert.deepEqual(count(dlr), { G: 6, R: 7, E: 6, J: 6 });
  assert.deepEqual(dlr.iono?.alpha, [2.6077e-8, 7.4506e-9, -1.1921e-7, 0]);
  // Every decoded orbit is where its constellation flies (radius in km, 60 s after its reference time).
  const radius: Record<string, [number, number]> = { G: [25_900, 27_200], J: [25_000, 46_000], E: [29_300, 29_900], R: [25_300, 25_700] };
  for (const e of [...wrd.ephemerides, ...dlr.ephemerides]) {
    const r = Math.hypot(...satelliteState(e, e.toe + 60).pos) / 1e3;
    const [lo, hi] = radius[e.sat[0]];
    assert.ok(r > lo && r < hi, `${e.sat}: ${r} km`);
  }
});
