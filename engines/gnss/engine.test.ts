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

test('the engine reports the Kalman filter position by default and the epoch solution with positioning spp; RAIM and the checks see the same epochs either way', async () => {
  const { positionReport } = await import('./report.ts');
  const { solveFile } = await import('./solve.ts');
  const s = STATIONS[1];
  const obs = parseObs(rinexText(s.obs));
  const nav = parseNav(rinexText(s.nav));
  const kalman = new GnssEngine({ nav, oscillator: 'TCXO', dynamics: 'static' });
  const spp = new GnssEngine({ nav, oscillator: 'TCXO', positioning: 'spp' });
  const batch = solveFile(obs, nav, {}, {}, { mode: 'kalman', dynamics: 'static' });
  for (const [k, ep] of obs.epochs.entries()) {
    const a = kalman.process(ep);
    const b = spp.process(ep);
    assert.ok(a.filtered && a.fix && b.fix && !b.filtered);
    assert.deepEqual(a.raim.excluded, b.raim.excluded);
    assert.deepEqual(a.checks.map((c) => c.result), b.checks.map((c) => c.result));
    const pa = positionReport(a)!;
    const e = batch.epochs[k];
    assert.ok(e.fix);
    assert.equal(pa.latitude, e.latitude);
    assert.equal(pa.longitude, e.longitude);
    assert.equal(positionReport(b)!.latitude, Math.round(b.fix.geodetic.lat * (180 / Math.PI) * 1e9) / 1e9);
  }
});
