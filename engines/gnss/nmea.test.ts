import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GnssInputError } from './errors.ts';
import { parseNmea } from './nmea.ts';
import { NmeaEpochAssembler } from './nmea-stream.ts';

/** Appends the correct checksum to a sentence body (without `$`). */
function sentence(body: string): string {
  let sum = 0;
  for (const ch of body) sum ^= ch.charCodeAt(0);
  return `$${body}*${sum.toString(16).toUpperCase().padStart(2, '0')}`;
}

test('GGA decodes position, fix quality, satellites and heights', () => {
  const s = parseNmea('$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7D');
  assert.equal(s.type, 'GGA');
  if (s.type !== 'GGA') return;
  assert.ok(Math.abs(s.lat! - -37.784788333) < 1e-9);
  assert.ok(Math.abs(s.lon! - 175.314896667) < 1e-9);
  assert.equal(s.satellites, 8);
  assert.equal(s.altitudeMsl, 59.9);
  assert.equal(s.geoidSeparation, 23.7);
});

test('a sentence with a wrong checksum is rejected with NMEA_CHECKSUM', () => {
  assert.throws(
    () => parseNmea('$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7E'),
    (e: unknown) => e instanceof GnssInputError && e.code === 'NMEA_CHECKSUM' && /computed 7D/.test(e.message),
  );
  assert.throws(() => parseNmea('$GPGGA,030719.000,3747.0873,S'), (e: unknown) => e instanceof GnssInputError && e.code === 'NMEA_CHECKSUM');
  assert.throws(() => parseNmea('hello'), (e: unknown) => e instanceof GnssInputError && e.code === 'NMEA_CORRUPT');
});

test('a stream with a corrupted GGA gives no position for that epoch and records the error', () => {
  const a = new NmeaEpochAssembler();
  a.push('$GPGGA,030719.000,3747.0873,S,17518.8938,E,1,08,1.1,59.9,M,23.7,M,,0000*7E');
  const e = a.flush();
  assert.equal(a.errors.length, 1);
  assert.equal(e, undefined);
  a.push(sentence('GPRMC,030720.000,V,,,,,,,311214,,,N'));
  const noFix = a.flush();
  assert.equal(a.errors.length, 1);
  assert.equal(noFix?.mode, 1);
  assert.equal(noFix?.lat, undefined);
});

test('GSV with an NMEA 4.10 signal id and GSA with a system id mark used satellites per constellation', () => {
  const a = new NmeaEpochAssembler();
  a.push('$GNRMC,003956.00,A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V*07');
  a.push('$GNGSA,A,3,82,66,81,,,,,,,,,,1.05,0.64,0.83,2*0C');
  a.push('$GLGSV,3,2,10,73,06,174,,74,05,132,,81,64,223,35,82,13,214,33,1*7F');
  const e = a.flush()!;
  assert.equal(e.time, '2019-04-12T00:39:56.000Z');
  const r81 = e.satellites.find((s) => s.id === 'R81');
  assert.equal(r81?.used, true);
  assert.equal(r81?.cn0, 35);
  assert.equal(e.satellites.find((s) => s.id === 'R73')?.used, false);
});
