import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EphemerisStore } from './ephemeris/select.ts';
import { prepareEpoch } from './measurements.ts';
import { solveWithRaim } from './raim.ts';
import { parseNav } from './rinex/nav.ts';
import { parseObs } from './rinex/obs.ts';
import { rinexText, STATIONS } from './testing/fixtures.ts';
import { chi2Quantile, chi2Survival } from './chi2.ts';

const data = STATIONS.map((s) => {
  const obs = parseObs(rinexText(s.obs));
  const nav = parseNav(rinexText(s.nav));
  const store = new EphemerisStore(nav.ephemerides);
  return { nav, epochs: obs.epochs.map((ep) => ({ time: ep.time, meas: prepareEpoch(ep, store).measurements })) };
});

test('chi-square quantiles match tabulated values', () => {
  assert.ok(Math.abs(chi2Quantile(1e-3, 2) - 13.8155) < 1e-3);
  assert.ok(Math.abs(chi2Quantile(0.05, 10) - 18.307) < 1e-3);
  assert.ok(Math.abs(chi2Survival(3.841, 1) - 0.05) < 1e-4);
});

test('clean fixture data raises no more than 0.1 % false alarms', () => {
  let alarms = 0;
  let epochs = 0;
  for (const d of data) {
    for (const ep of d.epochs) {
      const r = solveWithRaim(ep.time, ep.meas, { iono: d.nav.iono });
      epochs++;
      if (r.faultDetected) alarms++;
    }
  }
  assert.ok(epochs > 450);
  assert.ok(alarms / epochs <= 0.001, `${alarms} false alarms in ${epochs} epochs`);
});

test('a 30 m fault on one satellite is detected in >= 99 % of epochs with 6+ satellites and excluded correctly in >= 95 % with 7+', () => {
  let detectTrials = 0;
  let detected = 0;
  let excludeTrials = 0;
  let excludedRight = 0;
  for (const d of data) {
    // Every third epoch, a +30 m and a -30 m fault on each satellite in turn.
    d.epochs.forEach((ep, k) => {
      if (k % 3 !== 0) return;
      const clean = solveWithRaim(ep.time, ep.meas, { iono: d.nav.iono });
      if (!clean.solution.fix) return;
      const used = clean.solution.residuals.map((r) => r.sat);
      for (const sat of used) {
        for (const bias of [30, -30]) {
          const faulty = ep.meas.map((m) => (m.sat === sat ? { ...m, pseudorange: m.pseudorange + bias } : m));
          const r = solveWithRaim(ep.time, faulty, { iono: d.nav.iono });
          if (used.length >= 6) {
            detectTrials++;
            if (r.faultDetected) detected++;
          }
          if (used.length >= 7) {
            excludeTrials++;
            if (r.excluded.length === 1 && r.excluded[0] === sat) excludedRight++;
          }
        }
      }
    });
  }
  assert.ok(detectTrials > 1000 && excludeTrials > 1000);
  assert.ok(detected / detectTrials >= 0.99, `detected ${detected}/${detectTrials}`);
  assert.ok(excludedRight / excludeTrials >= 0.95, `excluded right ${excludedRight}/${excludeTrials}`);
});

test('after exclusion the solution is back near the fault-free one', () => {
  const d = data[0];
  const ep = d.epochs[20];
  const clean = solveWithRaim(ep.time, ep.meas, { iono: d.nav.iono });
  assert.ok(clean.solution.fix);
  const target = ep.meas[2].sat;
  const faulty = ep.meas.map((m) => (m.sat === target ? { ...m, pseudorange: m.pseudorange + 100 } : m));
  const r = solveWithRaim(ep.time, faulty, { iono: d.nav.iono });
  assert.deepEqual(r.excluded, [target]);
  assert.ok(r.solution.fix);
  const a = clean.solution.position;
  const b = r.solution.position;
  assert.ok(Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) < 5);
});
