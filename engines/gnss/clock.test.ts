import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClockFilter, clockProcessNoise, OSCILLATORS, type OscillatorClass } from './clock.ts';
import { Rng } from './simulator/random.ts';
import { GnssEngine } from './engine.ts';
import { ConstellationSimulator } from './simulator/simulator.ts';

/** Simulates a true clock of the class and a filter fed by noisy offsets, then holds over; returns bound coverage. */
function holdoverCoverage(osc: OscillatorClass, trials: number, calibrateS: number, horizons: number[], confidence: number) {
  const rng = new Rng(42);
  const inside = horizons.map(() => 0);
  const sigmaMeas = 3e-9;
  for (let trial = 0; trial < trials; trial++) {
    let offset = rng.normal() * 1e-6;
    let drift = rng.normal() * OSCILLATORS[osc].initialDrift;
    const kf = new ClockFilter(osc);
    const stepClock = (dt: number) => {
      const q = clockProcessNoise(osc, dt);
      const l11 = Math.sqrt(q[0][0]);
      const l21 = q[1][0] / l11;
      const l22 = Math.sqrt(Math.max(q[1][1] - l21 * l21, 0));
      const w1 = rng.normal();
      const w2 = rng.normal();
      offset += drift * dt + l11 * w1;
      drift += l21 * w1 + l22 * w2;
    };
    let t = 0;
    for (; t < calibrateS; t++) {
      kf.update(t, offset + sigmaMeas * rng.normal(), sigmaMeas ** 2);
      stepClock(1);
    }
    let h = 0;
    for (let k = 0; k < horizons.length; k++) {
      stepClock(horizons[k] - h);
      h = horizons[k];
      const p = kf.predict(t + h, confidence);
      if (Math.abs(offset - p.offset) <= p.bound) inside[k]++;
    }
  }
  return inside.map((n) => n / trials);
}

for (const osc of ['TCXO', 'OCXO', 'rubidium'] as const) {
  test(`${osc} holdover: the 95 % bound contains the actual clock error in about 95 % of runs at 1 min to 2 h`, () => {
    const coverage = holdoverCoverage(osc, 400, 300, [60, 600, 3600, 7200], 0.95);
    for (const c of coverage) assert.ok(c >= 0.92, `coverage ${coverage.join(', ')}`);
    // A bound too loose to mean anything would cover everything.
    assert.ok(coverage.some((c) => c < 0.995), `coverage ${coverage.join(', ')}`);
  });
}

test('the holdover bound grows with time and faster for a TCXO than for rubidium', () => {
  const grow = (osc: OscillatorClass) => {
    const kf = new ClockFilter(osc);
    for (let t = 0; t < 300; t++) kf.update(t, 1e-6 + 1e-10 * t, 9e-18);
    return [kf.predict(360).bound, kf.predict(3900).bound];
  };
  const tcxo = grow('TCXO');
  const rb = grow('rubidium');
  assert.ok(tcxo[1] > tcxo[0] && rb[1] > rb[0]);
  assert.ok(tcxo[1] > 10 * rb[1]);
});

test('a clock step beyond the oscillator model is rejected as an innovation, not absorbed', () => {
  const kf = new ClockFilter('OCXO');
  for (let t = 0; t < 100; t++) kf.update(t, 5e-7, 9e-18);
  const u = kf.update(100, 5e-7 + 200e-9, 9e-18);
  assert.equal(u.rejected, true);
  assert.ok(u.normalizedInnovation > 1000);
  assert.ok(Math.abs(kf.state().offset - 5e-7) < 5e-9);
});

test('simulator loss of signal: the engine holds over and its bound contains the true clock error', () => {
  const sim = new ConstellationSimulator({ site: { lat: -33.86, lon: 151.21, height: 40 }, seed: 9, startGps: 1.33e9, oscillator: 'OCXO', scenarios: [{ kind: 'signal_loss', start: 300 }] });
  const engine = new GnssEngine({ nav: sim.nav, oscillator: 'OCXO' });
  let checked = 0;
  for (let k = 0; k < 900; k++) {
    const e = sim.step();
    const a = engine.process(e.obs);
    if (e.elapsed >= 300) {
      assert.equal(a.fix, undefined);
      assert.equal(a.clock.holdover, true);
      const h = engine.holdover(e.obs.time, 0.99)!;
      assert.ok(Math.abs(h.offset - e.trueClock.offset) <= h.bound, `at ${e.elapsed} s: error ${((h.offset - e.trueClock.offset) * 1e9).toFixed(2)} ns, bound ${(h.bound * 1e9).toFixed(2)} ns`);
      checked++;
    }
  }
  assert.equal(checked, 600);
});
