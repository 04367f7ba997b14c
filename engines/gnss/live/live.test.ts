import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GnssEngine } from '../engine.ts';
import { gpsGalileoNav, galileoNominalNav } from '../simulator/galileo.ts';
import { RINEX_DIR, STATIONS } from '../testing/fixtures.ts';
import { createSource, LogSource, SimulatorSource, type LiveEpoch } from './index.ts';

const site = { lat: 46.5197, lon: 6.5657, height: 400 };

test('a configuration string names the simulator, a gpsd server or a log, and a wrong one is refused with its text', () => {
  assert.equal(createSource({ source: 'simulator', site, rate: 1 }).kind, 'simulator');
  const gpsd = createSource({ source: 'gpsd://127.0.0.1:2948', site, rate: 1 });
  assert.equal(gpsd.kind, 'gpsd');
  assert.equal(gpsd.description, 'gpsd://127.0.0.1:2948');
  const station = STATIONS[0];
  const log = createSource({ source: `log:${RINEX_DIR}${station.obs}?nav=${RINEX_DIR}${station.nav}`, site, rate: 10 });
  assert.equal(log.kind, 'log');
  assert.equal(log.intervalS, 30);
  assert.throws(() => createSource({ source: 'gpsd://host:99999', site, rate: 1 }), /port must be 1 to 65535/);
  assert.throws(() => createSource({ source: 'serial:/dev/ttyS0', site, rate: 1 }), /"serial:\/dev\/ttyS0": expected simulator/);
  assert.throws(() => createSource({ source: `log:${RINEX_DIR}${station.obs}`, site, rate: 1 }), /give its navigation file/);
});

test('the nominal Galileo constellation has 24 slots on 56 degree orbits of 29 600 km', () => {
  const ephs = galileoNominalNav(0, 3600);
  const sats = new Set(ephs.map((e) => e.sat));
  assert.equal(sats.size, 24);
  for (const e of ephs) {
    assert.ok(Math.abs(e.sqrtA ** 2 - 29_599_801) < 1);
    assert.ok(Math.abs((e.i0 * 180) / Math.PI - 56) < 1e-9);
  }
});

test('the simulator source solves with GPS and Galileo, and the multi-constellation check runs', () => {
  const nav = gpsGalileoNav();
  assert.ok(nav.ephemerides.some((e) => e.sat.startsWith('E')) && nav.ephemerides.some((e) => e.sat.startsWith('G')));
  const epochs: LiveEpoch[] = [];
  const src = new SimulatorSource({ site, rate: 1, seed: 3, now: () => 1_800_000_000_000 });
  // The first epoch is produced at start.
  src.start({ epoch: (e) => epochs.push(e), status: () => undefined });
  void src.stop();
  assert.ok(epochs[0]?.nav, 'the first epoch carries the navigation data');
  const engine = new GnssEngine({ nav: epochs[0]!.nav! });
  const a = engine.process(epochs[0]!.obs!, { agcPercent: epochs[0]!.agcPercent });
  assert.deepEqual(a.constellations, ['GPS', 'Galileo']);
  assert.equal(a.checks.find((c) => c.type === 'multi_constellation')?.available, true);
});

test('a signal-loss scenario empties the sky from the next epoch and clear brings the signals back', async () => {
  let now = 1_800_000_000_000;
  const got: LiveEpoch[] = [];
  const src = new SimulatorSource({ site, rate: 1, seed: 4, now: () => now });
  const sink = { epoch: (e: LiveEpoch) => got.push(e), status: () => undefined };
  src.start(sink);
  src.setScenario('signal-loss');
  assert.equal(src.scenario, 'signal-loss');
  const tick = async () => {
    now += 1000;
    await new Promise((r) => setTimeout(r, 600));
  };
  await tick();
  assert.equal(got[got.length - 1]!.obs!.sats.length, 0);
  src.setScenario('clear');
  await tick();
  await src.stop();
  assert.ok(got[got.length - 1]!.obs!.sats.length >= 8);
});

test('a RINEX log replays every epoch in order with its navigation data first, then ends', async () => {
  const station = STATIONS[0];
  let now = 0;
  const src = new LogSource({ path: RINEX_DIR + station.obs, nav: RINEX_DIR + station.nav, rate: 1000, now: () => now });
  const got: LiveEpoch[] = [];
  const statuses: boolean[] = [];
  src.start({ epoch: (e) => got.push(e), status: (s) => statuses.push(s.connected) });
  now = 1e9;
  await new Promise((r) => setTimeout(r, 100));
  await src.stop();
  assert.equal(got.length, src.length);
  assert.ok(got[0]!.nav && got[0]!.nav.ephemerides.length > 0);
  assert.ok(got.every((e, i) => i === 0 || e.gpsTime > got[i - 1]!.gpsTime));
  assert.deepEqual(statuses, [true, false]);
});
