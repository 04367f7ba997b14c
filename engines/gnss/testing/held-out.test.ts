import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNav } from '../rinex/nav.ts';
import { parseObs } from '../rinex/obs.ts';
import { solveFile } from '../solve.ts';
import { HELD_OUT_STATIONS, rinexText, STATIONS } from './fixtures.ts';

// Only that the held-out files read and solve in full: their accuracy is the benchmark's to
// report, and no test holds a figure measured on them, so nothing is chosen to fit them.

test('held-out stations are apart from the tuning stations', () => {
  for (const h of HELD_OUT_STATIONS) assert.ok(!STATIONS.some((s) => s.name === h.name || s.obs === h.obs), h.name);
});

test("ARL1's RINEX 2.11 observations read in full: 120 epochs, every satellite the epoch lines list, P1 beside C/A", () => {
  const s = HELD_OUT_STATIONS.find((x) => x.name === 'ARL1')!;
  const text = rinexText(s.obs);
  const obs = parseObs(text);
  assert.equal(obs.header.markerName, 'ARL1');
  assert.deepEqual(obs.header.approxPosition, [-740289.918, -5457071.734, 3207245.542]);
  assert.deepEqual(obs.header.obsTypes.G, ['L1', 'L2', 'C1', 'C2', 'P1', 'P2', 'D1', 'D2', 'S1', 'S2']);
  assert.equal(obs.epochs.length, 120);
  // Satellite counts straight from the epoch lines (columns 30-32 of RINEX 2), independent of the reader.
  const listed = text
    .split('\n')
    .filter((l) => /^ 15  7 19/.test(l))
    .map((l) => Number.parseInt(l.slice(29, 32), 10));
  assert.deepEqual(obs.epochs.map((e) => e.sats.length), listed);
  const g02 = obs.epochs[0].sats.find((o) => o.sat === 'G02')!;
  assert.equal(g02.pseudorange, 21276226.827);
  assert.equal(g02.pseudorangeP1, 21276226.702);
  assert.equal(g02.pseudorange2, 21276226.58);
  assert.equal(g02.code2, 'P2', 'C2 is written as 0.000 where absent; P2 is the second code then');
});

test('ARL1 solves every epoch with its own hour of broadcast navigation', () => {
  const s = HELD_OUT_STATIONS.find((x) => x.name === 'ARL1')!;
  const obs = parseObs(rinexText(s.obs));
  const nav = parseNav(rinexText(s.nav));
  const r = solveFile(obs, nav, {}, {}, { mode: 'kalman', dynamics: 'static' });
  assert.equal(r.summary.fixes, 120);
  assert.deepEqual(r.summary.constellations, ['GPS']);
  // A single-point fix with broadcast orbits stays within metres of a surveyed marker; 10 m is the
  // bound the tuning stations' test uses too.
  assert.ok((r.summary.max_horizontal_error_m ?? Infinity) < 10, `${r.summary.max_horizontal_error_m} m`);
});
