import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GnssEngine } from './engine.ts';
import { ConstellationSimulator } from './simulator/simulator.ts';
import { calibrate, holdoverMetrics, holdoverReport, historyReport, timingStatusReport, integrityReport, positionReport, spoofingReport, timingReport } from './report.ts';

test('service reports carry computed position, integrity, timing and holdover figures', () => {
  const sim = new ConstellationSimulator({ site: { lat: 37.4165, lon: -122.2042, height: 64 }, seed: 4, startGps: 1.36e9, scenarios: [{ kind: 'signal_loss', start: 120 }] });
  const engine = new GnssEngine({ nav: sim.nav, oscillator: 'OCXO' });
  let a = engine.process(sim.step().obs);
  for (let k = 1; k < 120; k++) a = engine.process(sim.step().obs);
  const pos = positionReport(a)!;
  assert.ok(Math.abs(pos.latitude - 37.4165) < 1e-4 && Math.abs(pos.longitude + 122.2042) < 1e-4);
  assert.ok(pos.horizontal_accuracy_m > 0.1 && pos.horizontal_accuracy_m < 5);
  assert.ok(pos.speed_mps !== null && pos.speed_mps < 0.1);
  assert.equal(pos.heading_deg, null);
  const integ = integrityReport(a);
  assert.equal(integ.spoofing_detected, false);
  assert.equal(integ.holdover_active, false);
  assert.deepEqual(integ.constellations, ['GPS']);
  assert.ok(integ.score > 50 && integ.score <= 100);
  const timing = timingReport(engine, a.time, { includeBounds: true });
  assert.equal(timing.source, 'gnss');
  assert.equal(timing.leap_seconds, 18);
  assert.ok(timing.accuracy_ns! > 0 && timing.accuracy_ns! < 10);
  assert.ok(timing.bounds!.upper_ns > 0 && timing.bounds!.lower_ns === -timing.bounds!.upper_ns);
  const ready = holdoverReport(engine, a.time);
  assert.equal(ready.ready, true);
  assert.ok(ready.max_holdover_duration_h! > 0.01);
  for (let k = 0; k < 60; k++) a = engine.process(sim.step().obs);
  assert.equal(positionReport(a), null);
  const held = timingReport(engine, a.time, { includeBounds: true });
  assert.equal(held.source, 'holdover');
  assert.ok(held.accuracy_ns! > timing.accuracy_ns!);
  assert.equal(holdoverReport(engine, a.time).current_holdover_age_s, 59);
  const spoof = spoofingReport(a);
  assert.equal(spoof.status, 'clear');
  assert.deepEqual(historyReport(engine.history.events, a.time - 3600, a.time).summary, { total_alerts: 0, total_warnings: 0, uptime_percent: 100 });
});

test('holdover metrics judge the prediction against the clock error found when signals return', () => {
  const sim = new ConstellationSimulator({ site: { lat: 51.5, lon: -0.12, height: 30 }, seed: 12, startGps: 1.37e9, oscillator: 'TCXO', scenarios: [{ kind: 'signal_loss', start: 200, end: 500 }] });
  const engine = new GnssEngine({ nav: sim.nav, oscillator: 'TCXO' });
  let last = 0;
  for (let k = 0; k < 520; k++) {
    const e = sim.step();
    engine.process(e.obs);
    last = e.obs.time;
  }
  const m = holdoverMetrics(engine, last);
  assert.equal(m.last_24h_holdover_events, 1);
  assert.ok(Math.abs(m.total_holdover_time_s - 300) <= 1);
  assert.ok(m.max_drift_observed_ns! > 0);
  assert.equal(m.drift_model_accuracy, 1);
});

test('timing status and calibration checkpoints come from the clock filter', () => {
  const sim = new ConstellationSimulator({ site: { lat: 35.68, lon: 139.69, height: 40 }, seed: 13, startGps: 1.38e9, oscillator: 'OCXO' });
  const engine = new GnssEngine({ nav: sim.nav, oscillator: 'OCXO' });
  assert.equal(timingStatusReport(engine, sim.startGps).status, 'acquiring');
  assert.equal(calibrate(engine, sim.startGps).calibration_status, 'insufficient_data');
  let t = 0;
  for (let k = 0; k < 12; k++) t = engine.process(sim.step().obs).time;
  const first = calibrate(engine, t);
  assert.equal(first.calibration_status, 'completed');
  assert.equal(first.improvement_percent, 0);
  for (let k = 0; k < 288; k++) t = engine.process(sim.step().obs).time;
  const second = calibrate(engine, t);
  assert.ok(second.improvement_percent > 10, `improvement ${second.improvement_percent}`);
  // Correlated multipath and ionosphere errors in the clock solutions limit the drift estimate to several percent.
  const trueDrift = sim.step().trueClock.drift * 3600e9;
  assert.ok(Math.abs(second.new_drift_estimate_ns_per_hour! - trueDrift) < 0.15 * Math.abs(trueDrift), `${second.new_drift_estimate_ns_per_hour} vs ${trueDrift}`);
  const status = timingStatusReport(engine, t);
  assert.equal(status.status, 'locked');
  assert.equal(status.holdover_ready, true);
  assert.ok(status.holdover_calibration_age_h! > 0.08);
});
