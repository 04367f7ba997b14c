import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GnssEngine } from '../engine.ts';
import { ConstellationSimulator } from '../simulator/simulator.ts';
import type { Scenario } from '../simulator/scenarios.ts';
import { defaultAnomalyModel } from '../simulator/training.ts';
import { signalPowerCheck, expectedCn0 } from './signal-power.ts';

const site = { lat: 48.8566, lon: 2.3522, height: 80 };
const model = defaultAnomalyModel();

function run(seed: number, scenarios: Scenario[], epochs: number) {
  const sim = new ConstellationSimulator({ site, seed, startGps: 1.3e9 + seed * 7919, scenarios });
  const engine = new GnssEngine({ nav: sim.nav, agcBaselinePercent: 50, anomalyModel: model });
  const out = [];
  for (let k = 0; k < epochs; k++) {
    const e = sim.step();
    out.push({ elapsed: e.elapsed, a: engine.process(e.obs, { agcPercent: e.agcPercent }) });
  }
  return { out, engine };
}

test('clean simulated runs raise no spoofing or interference warning', () => {
  for (const seed of [1, 2, 3]) {
    const { out, engine } = run(seed, [], 240);
    const warned = out.filter((x) => x.a.spoofing.status !== 'clear');
    assert.deepEqual(
      warned.map((x) => `${x.elapsed}: ${x.a.checks.filter((c) => c.result === 'warning').map((c) => c.type)}`),
      [],
      `seed ${seed}`,
    );
    assert.equal(engine.history.events.length, 0);
    assert.ok(out.every((x) => x.a.integrity.overall > 50));
  }
});

const ONSET = 30;
const scenarios: { name: string; scenario: Scenario; threat: string }[] = [
  { name: 'position push, overpowered', scenario: { kind: 'spoofer_position', start: ONSET, offsetEnu: [120, -60, 10], driftMps: [0.5, 0, 0], power: 'overpowered' }, threat: 'spoofing_position' },
  { name: 'position push, matched power', scenario: { kind: 'spoofer_position', start: ONSET, offsetEnu: [40, 30, 0], power: 'matched' }, threat: 'spoofing_position' },
  { name: 'time push, overpowered', scenario: { kind: 'spoofer_time', start: ONSET, offsetNs: 300, rateNsPerS: 2, power: 'overpowered' }, threat: 'spoofing_time' },
  { name: 'time push, matched power', scenario: { kind: 'spoofer_time', start: ONSET, offsetNs: 100, power: 'matched' }, threat: 'spoofing_time' },
  { name: 'jamming', scenario: { kind: 'jamming', start: ONSET, jsDb: 30 }, threat: 'jamming' },
];

for (const { name, scenario, threat } of scenarios) {
  test(`${name}: a warning within 2 s of onset, none before, and an event in the history`, () => {
    const { out, engine } = run(7, [scenario], ONSET + 20);
    assert.ok(out.filter((x) => x.elapsed < ONSET).every((x) => x.a.spoofing.status === 'clear'));
    const first = out.find((x) => x.elapsed >= ONSET && x.a.spoofing.status !== 'clear');
    assert.ok(first, 'no warning after onset');
    assert.ok(first.elapsed - ONSET <= 2, `first warning ${first.elapsed - ONSET} s after onset`);
    assert.equal(first.a.spoofing.threatType, threat);
    const events = engine.history.events;
    assert.equal(events.length, 1);
    assert.equal(events[0].threatType, threat);
    assert.equal(events[0].resolved, false);
    // The engine distrusts GNSS while the event is open: it holds the clock over.
    assert.equal(out[out.length - 1].a.clock.holdover, true);
  });
}

test('signal power flags a uniform, overpowered set and passes a natural one', () => {
  const els = [10, 25, 40, 55, 70, 85].map((d) => (d * Math.PI) / 180);
  const natural = signalPowerCheck(els.map((el, k) => ({ cn0: expectedCn0(el) + [0.8, -1.2, 1.5, -0.4, 0.9, -1.8][k], el })));
  assert.equal(natural.result, 'pass');
  const spoofed = signalPowerCheck(els.map((el) => ({ cn0: 55, el })));
  assert.equal(spoofed.result, 'warning');
  assert.ok(spoofed.measuredDbm > spoofed.expectedDbm + 5);
});
