import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GnssInputError } from '../errors.ts';
import { parseNav } from './nav.ts';
import { parseObs } from './obs.ts';
import { rinexText } from '../testing/fixtures.ts';

test('RINEX 2.10 observations: header position, 120 epochs, C1 pseudoranges per satellite', () => {
  const obs = parseObs(rinexText('07590920.05o'));
  assert.equal(obs.header.markerName, '0759');
  assert.deepEqual(obs.header.approxPosition, [-3976219.5082, 3382372.5671, 3652512.9849]);
  assert.equal(obs.epochs.length, 120);
  const first = obs.epochs[0];
  assert.deepEqual(first.sats.map((s) => s.sat), ['G03', 'G07', 'G08', 'G11', 'G19', 'G20', 'G24', 'G28']);
  assert.equal(first.sats[0].pseudorange, 24767686.375);
  assert.equal(first.sats[0].code, 'C1');
  assert.equal(first.sats[0].carrierPhase, 55923622.16);
});

test('RINEX 2.11 mixed observations with 20 types over continuation lines', () => {
  const obs = parseObs(rinexText('slac1180.21o'));
  assert.equal(obs.header.obsTypes.G.length, 20);
  assert.equal(obs.epochs.length, 241);
  const first = obs.epochs[0];
  assert.equal(first.sats.length, 25);
  const g15 = first.sats.find((s) => s.sat === 'G15');
  assert.equal(g15?.pseudorange, 23332073.875);
  assert.equal(g15?.cn0, 42.2);
  assert.ok(first.sats.some((s) => s.sat === 'E15'));
});

test('RINEX 2 navigation: ephemerides with toe in GPS seconds and Klobuchar coefficients', () => {
  const nav = parseNav(rinexText('brdc1180.21n'));
  assert.ok(nav.ephemerides.length > 50);
  assert.equal(nav.leapSeconds, 18);
  assert.equal(nav.iono?.alpha[0], 0.9313e-8);
  const g06 = nav.ephemerides.find((e) => e.sat === 'G06');
  assert.ok(g06 && g06.kind === 'kepler');
  assert.equal(g06.toe, 2155 * 604800 + 323984);
  assert.equal(g06.sqrtA, 0.515375527e4);
});

test('RINEX 3 observation and navigation text parse Galileo and GLONASS records', () => {
  const obsText = [
    '     3.04           OBSERVATION DATA    M                   RINEX VERSION / TYPE',
    'TEST                                                        MARKER NAME',
    '  4027893.6720   307045.6960  4919474.9080                  APPROX POSITION XYZ',
    'G    4 C1C L1C D1C S1C                                      SYS / # / OBS TYPES',
    'E    4 C1C L1C D1C S1C                                      SYS / # / OBS TYPES',
    '                                                            END OF HEADER',
    '> 2021 04 28 19 00  0.0000000  0  2',
    'G01  21565852.190   113327853.112 6      -523.123          45.000',
    'E07  23997373.680                        1234.500          40.250',
    '',
  ].join('\n');
  const obs = parseObs(obsText);
  assert.equal(obs.epochs[0].sats[1].sat, 'E07');
  assert.equal(obs.epochs[0].sats[1].doppler, 1234.5);
  assert.equal(obs.epochs[0].sats[0].cn0, 45);
  const navText = [
    '     3.04           N: GNSS NAV DATA    M: MIXED            RINEX VERSION / TYPE',
    'GPSA   1.1180E-08  1.4900E-08 -5.9600E-08 -5.9600E-08       IONOSPHERIC CORR',
    'GPSB   8.8060E+04  1.6380E+04 -1.9660E+05 -1.3110E+05       IONOSPHERIC CORR',
    '                                                            END OF HEADER',
    'R05 2021 04 28 19 15 00-1.234567890123E-05 0.000000000000E+00 6.840000000000E+04',
    '     1.234567890123E+04 1.234567890123E+00 0.000000000000E+00 0.000000000000E+00',
    '    -1.234567890123E+04 2.234567890123E+00 0.000000000000E+00 1.000000000000E+00',
    '     1.834567890123E+04 3.234567890123E-01 0.000000000000E+00 0.000000000000E+00',
    '',
  ].join('\n');
  const nav = parseNav(navText);
  const r05 = nav.ephemerides[0];
  assert.ok(r05.kind === 'glonass');
  assert.equal(r05.frequencyNumber, 1);
  assert.equal(r05.pos[0], 1.234567890123e7);
  assert.equal(nav.iono?.beta[0], 8.806e4);
});

test('a truncated observation file is a clear RINEX_TRUNCATED error', () => {
  const text = rinexText('07590920.05o');
  const cut = text.slice(0, text.indexOf('\n', text.length / 2 + 40));
  assert.throws(() => parseObs(cut), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_TRUNCATED');
});

test('a truncated navigation file is a clear RINEX_TRUNCATED error', () => {
  const lines = rinexText('07590920.05n').split('\n');
  const cut = lines.slice(0, 12 + 8 * 5 + 3).join('\n');
  assert.throws(() => parseNav(cut), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_TRUNCATED');
});

test('corrupt numbers and wrong file types are rejected with their line', () => {
  const text = rinexText('07590920.05o').replace('24767686.375', '2476x686.375');
  assert.throws(() => parseObs(text), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_CORRUPT' && e.line === 19);
  assert.throws(() => parseObs(rinexText('07590920.05n')), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_HEADER');
  assert.throws(() => parseNav('garbage\n'), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_HEADER');
  const navBad = rinexText('07590920.05n').replace('5.153636478420D+03', '5.15363647X420D+03');
  assert.throws(() => parseNav(navBad), (e: unknown) => e instanceof GnssInputError && e.code === 'RINEX_CORRUPT');
});
