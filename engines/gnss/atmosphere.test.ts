// The troposphere model: Saastamoinen zenith delays mapped with the RTCA DO-229 mapping function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { saastamoinen, tropoMapping } from './atmosphere.ts';
import { RAD } from './geodesy.ts';

test('the DO-229 mapping function is 1 at the zenith and maps less than 1/sin el low down, as the curved atmosphere does', () => {
  assert.ok(Math.abs(tropoMapping(90 * RAD) - 1) < 1e-3);
  // DO-229's own values: 5.58 at 10 degrees (1/sin el: 5.76), 10.2 at 5 degrees (11.5).
  assert.ok(Math.abs(tropoMapping(10 * RAD) - 5.58) < 0.01, `${tropoMapping(10 * RAD)}`);
  assert.ok(Math.abs(tropoMapping(5 * RAD) - 10.2) < 0.1, `${tropoMapping(5 * RAD)}`);
});

test('Saastamoinen at sea level: about 2.4 m at the zenith, the zenith delay times the mapping function at 10 degrees', () => {
  const site = { lat: 35 * RAD, lon: 139 * RAD, height: 0 };
  const zenith = saastamoinen(site, 90 * RAD);
  assert.ok(zenith > 2.3 && zenith < 2.6, `${zenith} m`);
  assert.ok(Math.abs(saastamoinen(site, 10 * RAD) - zenith * tropoMapping(10 * RAD)) < 1e-3);
  assert.equal(saastamoinen(site, -1 * RAD), 0);
});
