import { test } from 'node:test';
import assert from 'node:assert/strict';
import { klobuchar, saastamoinen } from './atmosphere.ts';
import { CLIGHT, FREQ_L1 } from './constants.ts';
import { EphemerisStore, satelliteState } from './ephemeris/select.ts';
import { azEl, ecefToEnu, ecefToGeodetic, enuToEcef, sub, type Vec3 } from './geodesy.ts';
import { PositionFilter, type Dynamics } from './kalman.ts';
import type { SatMeasurement } from './measurements.ts';
import { FilteredPositioning } from './positioning.ts';
import { parseNav } from './rinex/nav.ts';
import { parseObs } from './rinex/obs.ts';
import { solveFile } from './solve.ts';
import { geometricRange, solveSpp } from './spp.ts';
import { rinexText, STATIONS } from './testing/fixtures.ts';
import { gpsWeekTow } from './time.ts';

const nav = parseNav(rinexText('brdc1180.21n'));
const store = new EphemerisStore(nav.ephemerides);
const SLAC: Vec3 = [-2703115.266, -4291768.344, 3854247.955];

const START = (nav.ephemerides.find((e) => e.sat === 'G06')?.toe ?? 0) + 3600;

/** Deterministic standard-normal noise (Box-Muller on a fixed linear congruential sequence). */
function gaussian(seed: number) {
  let s = seed;
  const u = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s + 1) / 2147483650;
  };
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

/**
 * Measurements a receiver at `rcv` moving at `vel` (ECEF m/s) with clock bias `clock` (m) would
 * make of the real GPS constellation of 2021-04-28: the filter's own signal model (broadcast
 * Klobuchar, Saastamoinen) plus white code noise of `sigma` metres, and Doppler. `ionoFactor`
 * scales the true ionosphere against the broadcast model's.
 */
function synthetic(t: number, rcv: Vec3, vel: Vec3, clock: number, sigma: number, noise: () => number, ionoFactor = 1): SatMeasurement[] {
  const geo = ecefToGeodetic(rcv);
  const out: SatMeasurement[] = [];
  for (const sat of store.satellites()) {
    const eph = store.select(sat, t);
    if (!eph) continue;
    const st = satelliteState(eph, t);
    const { el, az } = azEl(rcv, geo, st.pos);
    if (el < (12 * Math.PI) / 180) continue;
    const { range, los } = geometricRange(st.pos, rcv);
    const rate = los[0] * (st.vel[0] - vel[0]) + los[1] * (st.vel[1] - vel[1]) + los[2] * (st.vel[2] - vel[2]);
    out.push({
      sat,
      constellation: 'GPS',
      pseudorange: range + clock + ionoFactor * klobuchar(undefined, geo, az, el, gpsWeekTow(t).tow) + saastamoinen(geo, el) + sigma * noise(),
      doppler: -rate / (CLIGHT / FREQ_L1),
      frequency: FREQ_L1,
      satPos: st.pos,
      satVel: st.vel,
      satClock: 0,
      satClockDrift: 0,
      ephemerisVariance: 2.4 * 2.4,
    });
  }
  return out;
}

/** Runs a filter over a trajectory at 1 Hz and returns the horizontal errors and the filter. */
function run(dynamics: Dynamics, speedEast: number, seconds: number, clockStepAt?: number) {
  const filter = new PositionFilter({ dynamics });
  const noise = gaussian(11);
  const g = ecefToGeodetic(SLAC);
  const vel = enuToEcef([speedEast, 0, 0], g);
  const errors: number[] = [];
  const initialised: string[] = [];
  for (let k = 0; k < seconds; k++) {
    const t = START + k;
    const rcv: Vec3 = [SLAC[0] + vel[0] * k, SLAC[1] + vel[1] * k, SLAC[2] + vel[2] * k];
    const clock = 1000 + 0.5 * k + (clockStepAt !== undefined && k >= clockStepAt ? CLIGHT * 1e-3 : 0);
    const meas = synthetic(t, rcv, vel, clock, 1, noise);
    const spp = solveSpp(t, meas, {});
    const out = filter.update(t, meas, spp.fix ? spp : undefined);
    assert.ok(out, `epoch ${k} solved`);
    if (out.initialised) initialised.push(out.initialised);
    const e = ecefToEnu(sub(out.position, rcv), g);
    errors.push(Math.hypot(e[0], e[1]));
  }
  return { filter, errors, initialised };
}

test('static filter on a fixed antenna: the horizontal error falls well below the single-epoch noise, with no restart', () => {
  const { errors, initialised, filter } = run('static', 0, 300);
  assert.deepEqual(initialised, ['cold start from the single-point fix']);
  assert.equal(filter.restarts, 0);
  assert.ok(errors[0] > 0.3, `a single epoch with 1 m code noise is off by ${errors[0]} m`);
  assert.ok(errors[299] < 0.25, `after 300 s: ${errors[299]} m`);
});

test('moving filter follows a receiver at 10 m/s, its velocity from Doppler', () => {
  const { errors, filter } = run('moving', 10, 120);
  assert.equal(filter.restarts, 0);
  assert.ok(Math.max(...errors.slice(10)) < 3, `largest error ${Math.max(...errors.slice(10))} m`);
});

test('a static filter on a moving receiver notices and restarts from the single-point fix, saying why', () => {
  const { errors, initialised, filter } = run('static', 10, 120);
  assert.ok(filter.restarts > 0);
  assert.match(initialised[1] ?? '', /restarted from the single-point fix: \d+ of \d+ pseudoranges disagreed with the static filter/);
  // It never trails the receiver by more than the distance it covers between restarts.
  assert.ok(Math.max(...errors) < 40, `largest error ${Math.max(...errors)} m`);
});

test('a 1 ms receiver clock step goes into the clock, not the position, and does not restart the filter', () => {
  const { errors, filter } = run('static', 0, 200, 100);
  assert.equal(filter.restarts, 0);
  assert.ok(errors[100] < 0.5 && errors[199] < 0.3, `errors ${errors[100]} ${errors[199]}`);
});

test('the filter needs its dynamics said, never a silent static default', () => {
  assert.throws(() => new FilteredPositioning({}), /dynamics/);
  assert.throws(() => new PositionFilter({ dynamics: 'parked' as Dynamics }), /static' or 'moving/);
});

test('on the fixture stations the static filter beats single-point on every epoch set, solving every epoch', () => {
  for (const s of STATIONS.slice(0, 2)) {
    const obs = parseObs(rinexText(s.obs));
    const n = parseNav(rinexText(s.nav));
    const spp = solveFile(obs, n, {}, {}, { mode: 'spp' });
    const kf = solveFile(obs, n, {}, {}, { mode: 'kalman', dynamics: 'static' });
    assert.equal(kf.summary.fixes, obs.epochs.length);
    assert.deepEqual(kf.summary.positioning, { mode: 'kalman', dynamics: 'static', smoothing: true, combined: false, ionosphere: 'broadcast' });
    assert.ok(kf.summary.horizontal_rms_m! < spp.summary.horizontal_rms_m!, `${s.name}: kalman ${kf.summary.horizontal_rms_m} spp ${spp.summary.horizontal_rms_m}`);
  }
});

test('a 30 m fault is excluded by RAIM in the epoch it appears and kept out of the filter', () => {
  const s = STATIONS[0];
  const obs = parseObs(rinexText(s.obs));
  const n = parseNav(rinexText(s.nav));
  const faulty = { ...obs, epochs: obs.epochs.map((ep, k) => (k < 40 ? ep : { ...ep, sats: ep.sats.map((o) => (o.sat === 'G20' ? { ...o, pseudorange: (o.pseudorange ?? 0) + 30 } : o)) })) };
  const spp = solveFile(faulty, n, {}, {}, { mode: 'spp' });
  const clean = solveFile(obs, n, {}, {}, { mode: 'kalman', dynamics: 'static' });
  const kf = solveFile(faulty, n, {}, {}, { mode: 'kalman', dynamics: 'static' });
  const e40 = kf.epochs[40];
  assert.ok(e40.fix && spp.epochs[40].fix);
  assert.deepEqual(e40.raim.excluded, ['G20']);
  assert.deepEqual(e40.raim, spp.epochs[40].raim);
  // The filtered positions with the fault excluded stay within a decimetre of the clean run's.
  for (let k = 40; k < 60; k++) {
    const a = kf.epochs[k];
    const b = clean.epochs[k];
    assert.ok(a.fix && b.fix);
    assert.ok(Math.abs(a.latitude - b.latitude) * 111e3 < 0.1 && Math.abs(a.longitude - b.longitude) * 91e3 < 0.1, `epoch ${k}`);
  }
});



test('GPS and Galileo together: the filter estimates the Galileo inter-system bias and stays on the site', async () => {
  const { ConstellationSimulator } = await import('./simulator/simulator.ts');
  const { gpsGalileoNav } = await import('./simulator/galileo.ts');
  const { GnssEngine } = await import('./engine.ts');
  const { geodeticToEcef, RAD } = await import('./geodesy.ts');
  const site = { lat: 37.4165, lon: -122.2042, height: 64 };
  const sim = new ConstellationSimulator({ site, seed: 5, interval: 1, nav: gpsGalileoNav(), startGps: 1.4e9 });
  const engine = new GnssEngine({ nav: sim.nav, dynamics: 'static' });
  const truth = geodeticToEcef({ lat: site.lat * RAD, lon: site.lon * RAD, height: site.height });
  let last;
  for (let k = 0; k < 120; k++) last = engine.process(sim.step().obs).filtered;
  assert.ok(last);
  assert.deepEqual(Object.keys(last.clockBias).sort(), ['GPS', 'Galileo']);
  assert.ok(last.used.some((s) => s[0] === 'E') && last.used.some((s) => s[0] === 'G'));
  const e = ecefToEnu(sub(last.position, truth), ecefToGeodetic(truth));
  assert.ok(Math.hypot(e[0], e[1]) < 2, `horizontal error ${Math.hypot(e[0], e[1])} m`);
});

test('a 30 m fault that RAIM later fails to isolate (six satellites, the wrong one excluded) is still kept out by the filter', () => {
  const s = STATIONS[0];
  const obs = parseObs(rinexText(s.obs));
  const n = parseNav(rinexText(s.nav));
  const onset = 60;
  const faulty = { ...obs, epochs: obs.epochs.map((ep, k) => (k < onset ? ep : { ...ep, sats: ep.sats.map((o) => (o.sat === 'G07' ? { ...o, pseudorange: (o.pseudorange ?? 0) + 30 } : o)) })) };
  const clean = solveFile(obs, n, {}, {}, { mode: 'kalman', dynamics: 'static' });
  const kf = solveFile(faulty, n, {}, {}, { mode: 'kalman', dynamics: 'static' });
  // RAIM alone picks the wrong satellite on some of these epochs.
  assert.ok(kf.epochs.slice(onset).some((e) => e.raim.excluded.length > 0 && !e.raim.excluded.includes('G07')));
  for (let k = onset; k < obs.epochs.length; k++) {
    const a = kf.epochs[k];
    const b = clean.epochs[k];
    assert.ok(a.fix && b.fix);
    const d = Math.hypot((a.latitude - b.latitude) * 111e3, (a.longitude - b.longitude) * 91e3);
    assert.ok(d < 0.5, `epoch ${k}: ${d} m from the fault-free filter`);
  }
});

test('a satellite gone for longer than the error correlation time loses its state and gets a fresh one on return, the position undisturbed', () => {
  const filter = new PositionFilter({ dynamics: 'static', errorCorrelationS: 60 });
  const noise = gaussian(5);
  const errors: number[] = [];
  let gone = '';
  for (let k = 0; k < 400; k++) {
    const t = START + k;
    let meas = synthetic(t, SLAC, [0, 0, 0], 1000 + 0.5 * k, 1, noise);
    if (k === 0) gone = meas[2].sat;
    // Two satellites leave for 150 s (2.5 correlation times), one of them for good.
    if (k >= 100 && k < 250) meas = meas.filter((m) => m.sat !== gone);
    if (k >= 100) meas = meas.filter((m) => m.sat !== meas[0].sat || m.sat === gone);
    const spp = solveSpp(t, meas, {});
    const out = filter.update(t, meas, spp.fix ? spp : undefined);
    assert.ok(out);
    if (k === 260) assert.ok(out.used.includes(gone), 'the returning satellite is used again');
    const e = ecefToEnu(sub(out.position, SLAC), ecefToGeodetic(SLAC));
    errors.push(Math.hypot(e[0], e[1]));
  }
  assert.equal(filter.restarts, 0);
  assert.ok(Math.max(...errors.slice(200)) < 0.5, `largest error after 200 s ${Math.max(...errors.slice(200))} m`);
});

test('an ionosphere 40 % above the broadcast model goes largely into the common ionosphere state, not the position', () => {
  // The true delay is 1.4 times Klobuchar's on every satellite, within the model's published 50 % error.
  const g = ecefToGeodetic(SLAC);
  const final = (klobucharErrorShare: number) => {
    const filter = new PositionFilter({ dynamics: 'static', klobucharErrorShare });
    const noise = gaussian(7);
    let error = Infinity;
    // Half an hour at 10 s.
    for (let k = 0; k < 1800; k += 10) {
      const t = START + k;
      const meas = synthetic(t, SLAC, [0, 0, 0], 1000, 0.3, noise, 1.4);
      const spp = solveSpp(t, meas, {});
      const out = filter.update(t, meas, spp.fix ? spp : undefined);
      assert.ok(out);
      const e = ecefToEnu(sub(out.position, SLAC), g);
      error = Math.hypot(e[0], e[1], e[2]);
    }
    assert.equal(filter.restarts, 0);
    return error;
  };
  const withState = final(0.5);
  const without = final(0);
  // The common error maps mostly into height and clock, and resembles a height error (both grow
  // towards the horizon), so half an hour separates it only in part.
  assert.ok(withState < 0.7 * without, `3D error after half an hour: ${withState} m with the state, ${without} m without`);
});
