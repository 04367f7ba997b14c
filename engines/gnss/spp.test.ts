import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNav } from './rinex/nav.ts';
import { parseObs } from './rinex/obs.ts';
import { solveFile } from './solve.ts';
import { EphemerisStore } from './ephemeris/select.ts';
import { prepareEpoch } from './measurements.ts';
import { solveSpp } from './spp.ts';
import { horizontalRms } from './testing/metrics.ts';
import { RINEX_DIR, rinexText, STATIONS } from './testing/fixtures.ts';
import { runRnx2rtkp, rnx2rtkpAvailable } from './testing/rtklib.ts';

const results = STATIONS.map((s) => {
  const obs = parseObs(rinexText(s.obs));
  const nav = parseNav(rinexText(s.nav));
  return { station: s, obs, nav, solved: solveFile(obs, nav) };
});

test('every fixture epoch gets a fix, near the surveyed header position', () => {
  for (const r of results) {
    assert.equal(r.solved.summary.fixes, r.obs.epochs.length, r.station.name);
    assert.ok((r.solved.summary.max_horizontal_error_m ?? Infinity) < 10, r.station.name);
  }
});

test('horizontal RMS reaches single-point accuracy: under 0.7 m on the GEONET days, 2.4 m on SLAC', () => {
  const limits: Record<string, number> = { '0759': 0.7, '3040': 0.7, SLAC: 2.4 };
  for (const r of results) assert.ok(r.solved.summary.horizontal_rms_m! < limits[r.station.name], `${r.station.name}: ${r.solved.summary.horizontal_rms_m}`);
});

test('horizontal RMS is within 10 % of RTKLIB rnx2rtkp single-point mode on each station', (t) => {
  if (!rnx2rtkpAvailable()) {
    t.skip('rnx2rtkp not installed (Debian package rtklib)');
    return;
  }
  for (const r of results) {
    const theirs = runRnx2rtkp(RINEX_DIR + r.station.obs, RINEX_DIR + r.station.nav)!;
    const truth = r.obs.header.approxPosition!;
    const theirRms = horizontalRms(theirs, truth);
    const ours = r.solved.summary.horizontal_rms_m!;
    assert.ok(ours <= theirRms * 1.1, `${r.station.name}: ours ${ours} m, rnx2rtkp ${theirRms.toFixed(3)} m`);
  }
});

test('DOPs are consistent: PDOP^2 = HDOP^2 + VDOP^2 and residual RMS stays at the metre level', () => {
  for (const r of results) {
    for (const e of r.solved.epochs) {
      if (!e.fix || e.pdop === null || e.hdop === null || e.vdop === null) continue;
      assert.ok(Math.abs(e.pdop ** 2 - e.hdop ** 2 - e.vdop ** 2) < 0.01);
      assert.ok(e.residual_rms_m < 5);
    }
  }
});

test('too few satellites is an explicit no-fix, not a position', () => {
  const r = results[0];
  const store = new EphemerisStore(r.nav.ephemerides);
  const ep = r.obs.epochs[10];
  const { measurements } = prepareEpoch(ep, store);
  const three = solveSpp(ep.time, measurements.slice(0, 3), { iono: r.nav.iono });
  assert.equal(three.fix, false);
  assert.match(three.fix ? '' : three.reason, /too few satellites/);
  const none = solveFile({ header: r.obs.header, epochs: [{ time: ep.time, sats: ep.sats.slice(0, 2) }] }, r.nav);
  assert.equal(none.epochs[0].fix, false);
  assert.equal('latitude' in none.epochs[0], false);
});

test('observations without matching ephemeris give no fix', () => {
  const r = results[0];
  const other = results[2].nav;
  const solved = solveFile({ header: r.obs.header, epochs: r.obs.epochs.slice(0, 3) }, other);
  assert.ok(solved.epochs.every((e) => !e.fix));
});
