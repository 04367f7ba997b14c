import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ecefToEnu, ecefToGeodetic, geodeticToEcef, RAD, sub, type Vec3 } from '../geodesy.ts';
import { decimalYear, nad83ToItrf2008, scoringReference } from './datum.ts';

const SLAC_NAD83: Vec3 = [-2703115.266, -4291768.344, 3854247.955];

test('decimal year of a GPS time', () => {
  assert.equal(decimalYear(0), 1980 + 5 / 366);
  // 2021-04-28 19:00 GPS: day 118 of 365, 19 h in.
  const t = (Date.UTC(2021, 3, 28, 19) - Date.UTC(1980, 0, 6)) / 1000;
  assert.ok(Math.abs(decimalYear(t) - (2021 + (117 + 19 / 24) / 365)) < 1e-9);
});

test("SLAC's NAD83(2011) header moved to ITRF2008 lands by the monument location its file's comments give", () => {
  const itrf = nad83ToItrf2008(SLAC_NAD83, 2021.32);
  const g = ecefToGeodetic(SLAC_NAD83);
  const d = ecefToEnu(sub(itrf, SLAC_NAD83), g);
  // The comment block's "Monument location: 37.416517 -122.204262 63.6962" (six decimals of a
  // degree, about 0.1 m) is 1.16 m west, 0.33 m north and 0.52 m below the header; the
  // transformation does not carry the site's own motion since 2010.0, a few centimetres a year.
  const monument = ecefToEnu(sub(geodeticToEcef({ lat: 37.416517 * RAD, lon: -122.204262 * RAD, height: 63.6962 }), SLAC_NAD83), g);
  assert.ok(Math.hypot(d[0] - monument[0], d[1] - monument[1]) < 0.4, `moved ${d.map((v) => v.toFixed(3)).join(', ')} m, monument ${monument.map((v) => v.toFixed(3)).join(', ')} m`);
  assert.ok(Math.abs(d[2] - monument[2]) < 0.05);
  assert.ok(Math.abs(d[0] + 1.49) < 0.02 && Math.abs(d[1] - 0.23) < 0.02, 'the transformation as measured when it was written');
});

test('only a header in another frame is moved for scoring', () => {
  const t = (Date.UTC(2021, 3, 28, 19) - Date.UTC(1980, 0, 6)) / 1000;
  assert.deepEqual(scoringReference(SLAC_NAD83, undefined, t), { position: SLAC_NAD83, frame: 'header' });
  const moved = scoringReference(SLAC_NAD83, 'NAD83(2011)', t);
  assert.match(moved.frame, /^ITRF2008 at 2021\.32/);
  assert.ok(Math.hypot(...sub(moved.position, SLAC_NAD83)) > 1.5);
});
