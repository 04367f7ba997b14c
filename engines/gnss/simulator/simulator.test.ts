import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConstellationSimulator } from './simulator.ts';
import { EphemerisStore } from '../ephemeris/select.ts';
import { prepareEpoch } from '../measurements.ts';
import { solveWithRaim } from '../raim.ts';
import { ecefToEnu, sub } from '../geodesy.ts';
import { solveVelocity } from '../velocity.ts';
import { utcToGps } from '../time.ts';

const site = { lat: 37.4165, lon: -122.2042, height: 64 };

test('the simulator always has satellites in view now, re-timing the shipped ephemeris', () => {
  const sim = new ConstellationSimulator({ site, seed: 3 });
  const e = sim.step();
  assert.ok(e.obs.sats.length >= 6, `${e.obs.sats.length} satellites`);
  assert.ok(Math.abs(e.trueTime - utcToGps(Date.now())) < 5);
});

test('simulated observations solved by the engine land within the configured noise of the site', () => {
  const codeNoiseM = 0.3;
  const multipathM = 0.4;
  const sim = new ConstellationSimulator({ site, seed: 11, startGps: 1.35e9, codeNoiseM, multipathM });
  const store = new EphemerisStore(sim.nav.ephemerides);
  let h2 = 0;
  let n = 0;
  let bound2 = 0;
  let within95 = 0;
  let speed = 0;
  for (let k = 0; k < 300; k++) {
    const e = sim.step();
    const { measurements } = prepareEpoch(e.obs, store);
    const r = solveWithRaim(e.obs.time, measurements, { iono: sim.nav.iono });
    assert.ok(r.solution.fix, `epoch ${k}`);
    const d = ecefToEnu(sub(r.solution.position, e.truePosition), sim.site);
    const herr2 = d[0] * d[0] + d[1] * d[1];
    h2 += herr2;
    // Expected horizontal error from the configured noise of the satellites used: HDOP times their RMS sigma.
    const used = r.solution.residuals.map((x) => e.errorSigmas.get(x.sat) ?? 0);
    const sigma = r.solution.dop.hdop * Math.sqrt(used.reduce((a, v) => a + v * v, 0) / used.length);
    bound2 += sigma * sigma;
    if (Math.sqrt(herr2) <= 2.45 * sigma) within95++;
    n++;
    assert.ok(Math.abs(r.solution.clockBias.GPS! / 299792458 - e.trueClock.offset) < 30e-9);
    speed += solveVelocity(r.solution, measurements)?.speedMps ?? Infinity;
  }
  const rms = Math.sqrt(h2 / n);
  const expected = Math.sqrt(bound2 / n);
  assert.ok(rms <= expected * 1.2, `horizontal RMS ${rms.toFixed(2)} m, configured noise gives ${expected.toFixed(2)} m`);
  assert.ok(within95 / n >= 0.9, `${within95}/${n} epochs within the 95 % circle`);
  assert.ok(speed / n < 0.05, `static receiver speed ${(speed / n).toFixed(3)} m/s`);
});

test('a satellite fault scenario is excluded by RAIM and the others stay clean', () => {
  const probe = new ConstellationSimulator({ site, seed: 5, startGps: 1.35e9 }).step();
  const target = [...probe.elevations.entries()].sort((a, b) => b[1] - a[1])[2][0];
  const sim = new ConstellationSimulator({ site, seed: 5, startGps: 1.35e9, scenarios: [{ kind: 'satellite_fault', start: 10, sat: target, biasM: 40 }] });
  const store = new EphemerisStore(sim.nav.ephemerides);
  let faulted = 0;
  let excluded = 0;
  for (let k = 0; k < 40; k++) {
    const e = sim.step();
    const { measurements } = prepareEpoch(e.obs, store);
    const r = solveWithRaim(e.obs.time, measurements, { iono: sim.nav.iono });
    if (k < 10) assert.equal(r.faultDetected, false);
    else if (measurements.some((m) => m.sat === target)) {
      faulted++;
      if (r.excluded.join() === target) excluded++;
    }
  }
  assert.ok(faulted > 20);
  assert.equal(excluded, faulted);
});

test('signal loss leaves no observations, and they return after it ends', () => {
  const sim = new ConstellationSimulator({ site, seed: 2, startGps: 1.35e9, scenarios: [{ kind: 'signal_loss', start: 2, end: 4 }] });
  const counts = Array.from({ length: 6 }, () => sim.step().obs.sats.length);
  assert.deepEqual(counts.map((c) => c > 0), [true, true, false, false, true, true]);
});
