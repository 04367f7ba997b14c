// The dual-frequency ionosphere-free path: the code combination, which satellites get it, its smoothing, and files solved with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLIGHT, FREQ_L1, FREQ_L2 } from './constants.ts';
import { EphemerisStore } from './ephemeris/select.ts';
import { ionoFreeCode, prepareEpoch } from './measurements.ts';
import { parseNav } from './rinex/nav.ts';
import { parseObs, type SatObservation } from './rinex/obs.ts';
import { HatchFilter } from './smoothing.ts';
import { solveFile } from './solve.ts';
import { rinexText, STATIONS } from './testing/fixtures.ts';

const L1 = CLIGHT / FREQ_L1;
const L2 = CLIGHT / FREQ_L2;
const GAMMA = (FREQ_L1 / FREQ_L2) ** 2;

/** One GPS satellite at range rho with L1 ionosphere iono (L2: gamma times; code +, phase -), a code bias on L1 C/A only. */
function observe(rho: number, iono: number, extra: Partial<SatObservation> = {}): SatObservation {
  return {
    sat: 'G07',
    pseudorange: rho + iono,
    pseudorange2: rho + GAMMA * iono,
    carrierPhase: (rho - iono) / L1 + 1000,
    carrierPhase2: (rho - GAMMA * iono) / L2 + 2000,
    lli: 0,
    lli2: 0,
    band2: '2',
    code: 'C1',
    code2: 'P2',
    ...extra,
  };
}

test('the ionosphere-free code removes the first-order ionosphere, prefers P1 to C/A, and carries 8.87 times one code variance', () => {
  const rho = 2.2e7;
  const a = ionoFreeCode(observe(rho, 7.5));
  assert.ok(a);
  assert.ok(Math.abs(a.pseudorange - rho) < 1e-6, `${a.pseudorange - rho}`);
  assert.ok(Math.abs(a.noiseFactor - 8.87) < 0.01, `${a.noiseFactor}`);
  assert.equal(a.codes, 'C1/P2');
  // A C/A code 0.5 m off P1 (a P1-C1 bias): with P1 reported the combination uses P1 and is exact.
  const b = ionoFreeCode(observe(rho, 7.5, { pseudorange: rho + 7.5 + 0.5, pseudorangeP1: rho + 7.5 }));
  assert.ok(b && Math.abs(b.pseudorange - rho) < 1e-6);
  assert.equal(b.codes, 'P1/P2');
});

test('satellites whose broadcast clock is not defined on their two codes keep the single-frequency path', () => {
  const o = observe(2.2e7, 5);
  assert.equal(ionoFreeCode({ ...o, pseudorange2: undefined }), undefined, 'one code');
  assert.equal(ionoFreeCode({ ...o, band2: '5' }), undefined, 'GPS L1/L5 needs CNAV inter-signal corrections');
  assert.equal(ionoFreeCode({ ...o, sat: 'E11', band2: '5' }), undefined, 'Galileo');
  assert.equal(ionoFreeCode({ ...o, sat: 'R03' }), undefined, 'GLONASS');
  assert.equal(ionoFreeCode({ ...o, pseudorange2: o.pseudorange! + 500 }), undefined, 'a second code 500 m off is a tracking error');
});

test('a fixture epoch: dual-frequency gives each GPS satellite with P2 the combination without TGD, broadcast the TGD-corrected C1', () => {
  const s = STATIONS[0];
  const obs = parseObs(rinexText(s.obs));
  const nav = parseNav(rinexText(s.nav));
  const store = new EphemerisStore(nav.ephemerides);
  const ep = obs.epochs[10];
  const dual = prepareEpoch(ep, store, { ionosphere: 'dual-frequency' }).measurements;
  const single = prepareEpoch(ep, store).measurements;
  assert.equal(dual.length, single.length);
  assert.ok(dual.length >= 6);
  for (const m of dual) {
    const o = ep.sats.find((x) => x.sat === m.sat)!;
    const eph = store.select(m.sat, ep.time)!;
    assert.ok(eph.kind === 'kepler');
    assert.ok(m.ionoFree, `${m.sat} has C1 and P2`);
    assert.equal(m.ionoFree.codes, 'C1/P2');
    assert.ok(Math.abs(m.pseudorange - (GAMMA * o.pseudorange! - o.pseudorange2!) / (GAMMA - 1)) < 1e-6);
    const sm = single.find((x) => x.sat === m.sat)!;
    assert.equal(sm.ionoFree, undefined);
    assert.ok(Math.abs(sm.pseudorange - (o.pseudorange! - CLIGHT * eph.tgd)) < 1e-6);
  }
});

test('the ionosphere-free code smoothed with the ionosphere-free phase follows the range under a growing ionosphere', () => {
  const hatch = new HatchFilter();
  let last = 0;
  for (let k = 0; k < 120; k++) {
    const t = 30 * k;
    const rho = 2.2e7 + 400 * t;
    // 3 m more ionosphere over the hour, and a code error alternating +-1 m on both codes.
    const iono = 2 + t / 1200;
    const e = k % 2 ? 1 : -1;
    const o = observe(rho, iono, { pseudorange: rho + iono + e, pseudorange2: rho + GAMMA * iono + e });
    const code = ionoFreeCode(o)!.pseudorange;
    const out = hatch.update(t, [o], () => ({ f1: FREQ_L1, f2: FREQ_L2, ionoFreeCode: code }))[0];
    assert.equal(out.ionoFree, true);
    assert.equal(out.raw, code);
    last = out.pseudorange - rho;
  }
  // Raw, the combination carries the 1 m error (equal on both codes: +-1 m); smoothed it is
  // a few centimetres from the range, with nothing left of the ionosphere's growth.
  assert.ok(Math.abs(last) < 0.1, `smoothed ionosphere-free code ${last} m from the range`);
});

test('every fixture station solves every epoch with the dual-frequency path, which says so in its summary', () => {
  for (const s of STATIONS) {
    const obs = parseObs(rinexText(s.obs));
    const nav = parseNav(rinexText(s.nav));
    const r = solveFile(obs, nav, {}, {}, { mode: 'kalman', dynamics: 'static', ionosphere: 'dual-frequency' });
    assert.equal(r.summary.fixes, obs.epochs.length, s.name);
    assert.equal(r.summary.positioning.ionosphere, 'dual-frequency');
    assert.ok(r.summary.horizontal_rms_m! < 5, `${s.name}: ${r.summary.horizontal_rms_m} m`);
  }
});

test('the engine with the dual-frequency path reports the batch solution epoch by epoch, and its checks stay clear on a real receiver', async () => {
  const { GnssEngine } = await import('./engine.ts');
  const { positionReport } = await import('./report.ts');
  const s = STATIONS[0];
  const obs = parseObs(rinexText(s.obs));
  const nav = parseNav(rinexText(s.nav));
  const engine = new GnssEngine({ nav, oscillator: 'TCXO', ionosphere: 'dual-frequency' });
  const batch = solveFile(obs, nav, {}, {}, { mode: 'kalman', dynamics: 'moving', ionosphere: 'dual-frequency' });
  for (const [k, ep] of obs.epochs.entries()) {
    const a = engine.process(ep);
    assert.equal(a.spoofing.status, 'clear', `${ep.time}: ${a.checks.filter((c) => c.result === 'warning').map((c) => c.detail)}`);
    const p = positionReport(a)!;
    const e = batch.epochs[k];
    assert.ok(e.fix && p);
    assert.equal(p.latitude, e.latitude);
    assert.equal(p.longitude, e.longitude);
  }
});
