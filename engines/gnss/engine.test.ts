import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GnssEngine } from './engine.ts';
import { parseNav } from './rinex/nav.ts';
import { parseObs } from './rinex/obs.ts';
import { defaultAnomalyModel } from './simulator/training.ts';
import { rinexText, STATIONS } from './testing/fixtures.ts';

test('the fixture stations (real receivers with TCXO clocks) run through the whole engine without a warning', () => {
  const model = defaultAnomalyModel();
  for (const s of STATIONS) {
    const obs = parseObs(rinexText(s.obs));
    const engine = new GnssEngine({ nav: parseNav(rinexText(s.nav)), oscillator: 'TCXO', anomalyModel: model });
    let fixes = 0;
    for (const ep of obs.epochs) {
      const a = engine.process(ep);
      if (a.fix) fixes++;
      assert.equal(a.spoofing.status, 'clear', `${s.name} ${a.checks.filter((c) => c.result === 'warning').map((c) => c.detail)}`);
    }
    assert.equal(fixes, obs.epochs.length);
    assert.equal(engine.history.events.length, 0);
    // The filter learns the real drift: about 1.4 us/s for 0759's clock, near zero for SLAC's steered one.
    const drift = engine.clock.state().drift;
    assert.ok(s.name === 'SLAC' ? Math.abs(drift) < 1e-8 : Math.abs(drift) > 1e-7, `${s.name} drift ${drift}`);
  }
});

test('a receiver clock model of the wrong class is flagged by the clock consistency check', () => {
  const s = STATIONS[0];
  const engine = new GnssEngine({ nav: parseNav(rinexText(s.nav)), oscillator: 'rubidium' });
  const obs = parseObs(rinexText(s.obs));
  const warned = obs.epochs.slice(0, 10).map((ep) => engine.process(ep).checks.find((c) => c.type === 'clock_consistency')?.result);
  assert.ok(warned.includes('warning'));
});
