import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LnavDecoder } from './lnav.ts';
import { parseNav } from './rinex/nav.ts';
import { rinexText } from './testing/fixtures.ts';
import { lnavSubframes, rawxFrame, sfrbxFrame } from './testing/ubx-encode.ts';
import { keplerState } from './ephemeris/gps.ts';
import { ConstellationSimulator } from './simulator/simulator.ts';
import { replayLog, solveReplay } from './replay.ts';
import { ecefToEnu, sub } from './geodesy.ts';
import type { KeplerEphemeris } from './ephemeris/types.ts';

test('LNAV subframes 1-3 decode back to the broadcast ephemeris they carry', () => {
  const nav = parseNav(rinexText('brdc1180.21n'));
  const decoder = new LnavDecoder();
  let checked = 0;
  for (const e of nav.ephemerides.slice(0, 12)) {
    if (e.kind !== 'kepler') continue;
    const [s1, s2, s3] = lnavSubframes(e);
    assert.equal(decoder.push(e.sat, s1, e.toe), undefined);
    assert.equal(decoder.push(e.sat, s2, e.toe), undefined);
    const d = decoder.push(e.sat, s3, e.toe);
    assert.ok(d, e.sat);
    assert.equal(d.toe, e.toe);
    // RINEX prints 12 significant digits: equal to within one least significant bit of the message.
    assert.ok(Math.abs(d.sqrtA - e.sqrtA) <= 2 ** -19);
    assert.ok(Math.abs(d.e - e.e) <= 2 ** -33);
    assert.ok(Math.abs(d.af0 - e.af0) <= 2 ** -31);
    // Same orbit to the millimetre an hour later.
    const a = keplerState(e, e.toe + 3600).pos;
    const b = keplerState(d, d.toe + 3600).pos;
    assert.ok(Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) < 1e-3, e.sat);
    checked++;
  }
  assert.ok(checked >= 10);
});

test('subframes with a mismatched issue of data are not combined', () => {
  const e = parseNav(rinexText('brdc1180.21n')).ephemerides[0] as KeplerEphemeris;
  const other = { ...e, iode: (e.iode + 1) % 256 };
  const decoder = new LnavDecoder();
  decoder.push(e.sat, lnavSubframes(e)[0], e.toe);
  decoder.push(e.sat, lnavSubframes(e)[1], e.toe);
  assert.equal(decoder.push(e.sat, lnavSubframes(other)[2], e.toe), undefined);
});

test('a u-blox stream of RAWX and SFRBX frames is solved by the engine itself near the true site', () => {
  const site = { lat: 44.0689, lon: -121.3141, height: 1108 };
  // A start 8 s past a 16 s boundary re-times the ephemerides by a multiple of 16 s, so that their
  // reference times stay on the grid the LNAV message can carry.
  const sim = new ConstellationSimulator({ site, seed: 8, startGps: 1.34e9 + 8 });
  const store = sim.nav.ephemerides.filter((e): e is KeplerEphemeris => e.kind === 'kepler');
  const frames: Buffer[] = [];
  const truth: [number, number, number][] = [];
  for (let k = 0; k < 30; k++) {
    const s = sim.step();
    frames.push(rawxFrame(s.obs));
    truth.push(s.truePosition);
    if (k === 2) {
      // The subframes of every satellite in view arrive after the third epoch.
      for (const sat of s.obs.sats) {
        const eph = store.filter((e) => e.sat === sat.sat).sort((a, b) => Math.abs(a.toe - s.trueTime) - Math.abs(b.toe - s.trueTime))[0];
        for (const words of lnavSubframes(eph)) frames.push(sfrbxFrame(Number(sat.sat.slice(1)), words));
      }
    }
  }
  const replay = replayLog(Buffer.concat(frames));
  assert.equal(replay.errors.length, 0);
  assert.ok(replay.ephemerides.length >= 6);
  const solved = solveReplay(replay);
  assert.equal(solved.length, 30);
  assert.equal(solved[0].assessment.fix, undefined);
  assert.match(solved[0].assessment.noFixReason ?? '', /too few satellites/);
  const fixes = solved.filter((x) => x.assessment.fix);
  assert.ok(fixes.length >= 26, `${fixes.length} fixes`);
  for (const f of fixes) {
    const d = ecefToEnu(sub(f.assessment.fix!.position, truth[0]), sim.site);
    assert.ok(Math.hypot(d[0], d[1]) < 5, `horizontal error ${Math.hypot(d[0], d[1])}`);
  }
});
