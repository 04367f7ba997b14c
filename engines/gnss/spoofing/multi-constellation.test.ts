import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EphemerisStore } from '../ephemeris/select.ts';
import { prepareEpoch, type SatMeasurement } from '../measurements.ts';
import { ConstellationSimulator } from '../simulator/simulator.ts';
import { multiConstellation } from './multi-constellation.ts';

const site = { lat: 52.52, lon: 13.405, height: 50 };

/**
 * The shipped navigation file is GPS only, so this test relabels part of the GPS satellites as
 * a second constellation: the check compares two independent satellite sets, which is what it
 * does with real Galileo signals.
 */
function splitEpoch(scenario?: { offsetEnu: [number, number, number] }) {
  const clean = new ConstellationSimulator({ site, seed: 21, startGps: 1.32e9 });
  const spoofed = new ConstellationSimulator({
    site,
    seed: 21,
    startGps: 1.32e9,
    scenarios: scenario ? [{ kind: 'spoofer_position', start: 0, offsetEnu: scenario.offsetEnu, power: 'matched' }] : [],
  });
  const a = clean.step();
  const b = spoofed.step();
  const store = new EphemerisStore(clean.nav.ephemerides);
  const ma = prepareEpoch(a.obs, store).measurements;
  const mb = prepareEpoch(b.obs, store).measurements;
  const sats = ma.map((m) => m.sat).sort();
  const half = new Set(sats.filter((_, k) => k % 2 === 1));
  const merged: SatMeasurement[] = [
    ...ma.filter((m) => !half.has(m.sat)),
    ...mb.filter((m) => half.has(m.sat)).map((m) => ({ ...m, constellation: 'Galileo' as const })),
  ];
  return { time: a.obs.time, merged, nav: clean.nav };
}

test('two constellations seeing the same place agree', () => {
  const { time, merged, nav } = splitEpoch();
  const r = multiConstellation(time, merged, { iono: nav.iono });
  assert.equal(r.available, true);
  assert.equal(r.result, 'pass');
  assert.ok(r.deltaM! < 10);
});

test('one constellation pushed 150 m away makes the check warn with the delta', () => {
  const { time, merged, nav } = splitEpoch({ offsetEnu: [150, 0, 0] });
  const r = multiConstellation(time, merged, { iono: nav.iono });
  assert.equal(r.result, 'warning');
  assert.ok(Math.abs(r.deltaM! - 150) < 20, `delta ${r.deltaM}`);
});

test('with one constellation the check reports itself unavailable', () => {
  const { time, merged, nav } = splitEpoch();
  const r = multiConstellation(time, merged.map((m) => ({ ...m, constellation: 'GPS' as const })), { iono: nav.iono });
  assert.equal(r.available, false);
  assert.equal(r.result, 'pass');
});
