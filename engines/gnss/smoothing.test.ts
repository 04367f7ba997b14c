import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLIGHT, FREQ_L1, FREQ_L2 } from './constants.ts';
import type { SatObservation } from './rinex/obs.ts';
import { HatchFilter } from './smoothing.ts';

const L1 = CLIGHT / FREQ_L1;
const L2 = CLIGHT / FREQ_L2;
const GAMMA = (FREQ_L1 / FREQ_L2) ** 2;
const gps = () => ({ f1: FREQ_L1, f2: FREQ_L2 });
const l1only = () => ({ f1: FREQ_L1 });

/** Deterministic code noise in [-1, 1] m (a fixed linear congruential sequence). */
function noiseSource(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return (s / 2147483648) * 2 - 1;
  };
}

/**
 * One satellite's observations at time t: range rho(t), L1 ionosphere I(t) (code +I, phase -I;
 * on L2 gamma times), ambiguities n1 and n2 cycles.
 */
function observe(sat: string, rho: number, iono: number, noise: number, n1: number, n2: number, extra: Partial<SatObservation> = {}): SatObservation {
  return {
    sat,
    pseudorange: rho + iono + noise,
    pseudorange2: rho + GAMMA * iono + noise,
    carrierPhase: (rho - iono) / L1 + n1,
    carrierPhase2: (rho - GAMMA * iono) / L2 + n2,
    lli: 0,
    lli2: 0,
    band2: '2',
    ...extra,
  };
}

test('carrier smoothing cuts code noise, and the divergence-free filter does not drift with the ionosphere', () => {
  const noise = noiseSource(7);
  const dual = new HatchFilter();
  const single = new HatchFilter({ tauSingleS: 600 });
  let rawErr = 0;
  let dualErr = 0;
  let singleLast = 0;
  let dualLast = 0;
  for (let k = 0; k < 120; k++) {
    const t = 30 * k;
    const rho = 2.2e7 + 400 * t;
    // The ionosphere grows by 3 m over the hour: code and carrier diverge at 2 x 0.83 mm/s.
    const iono = 2 + t / 1200;
    const o = observe('G01', rho, iono, noise(), 1000, 2000);
    const d = dual.update(t, [o], gps)[0];
    const s = single.update(t, [{ ...o, carrierPhase2: undefined }], l1only)[0];
    const truth = rho + iono;
    if (k >= 20) {
      rawErr += (o.pseudorange! - truth) ** 2;
      dualErr += (d.pseudorange - truth) ** 2;
    }
    assert.equal(d.divergenceFree, true);
    singleLast = s.pseudorange - truth;
    dualLast = d.pseudorange - truth;
  }
  assert.ok(Math.sqrt(dualErr / 100) < 0.35 * Math.sqrt(rawErr / 100), `smoothed ${Math.sqrt(dualErr / 100)} vs raw ${Math.sqrt(rawErr / 100)}`);
  // With L1 phase alone the smoothed code lags the ionosphere by 2 dI/dt x tau = 1 m at a 600 s window.
  assert.ok(singleLast < -0.7, `single-frequency bias ${singleLast}`);
  assert.ok(Math.abs(dualLast) < 0.3, `divergence-free bias ${dualLast}`);
});

/** Runs 20 clean epochs, then one epoch built by `slip`, and returns that epoch's output. */
function slipAt(slip: (rho: number) => SatObservation, f: () => { f1: number; f2?: number } = gps) {
  const hatch = new HatchFilter();
  const noise = noiseSource(3);
  for (let k = 0; k < 20; k++) hatch.update(30 * k, [observe('G05', 2.1e7 + 100 * k, 3, noise(), 500, 700)], f);
  const rho = 2.1e7 + 100 * 20;
  const out = hatch.update(600, [slip(rho)], f)[0];
  return { out, hatch, rho };
}

test('a loss-of-lock flag restarts the filter, so a carrier jump never reaches the smoothed code', () => {
  // The phase jumps by 1000 cycles (190 m) and the receiver flags it.
  const { out, rho } = slipAt((rho) => observe('G05', rho, 3, 0, 1500, 700, { lli: 1 }));
  assert.equal(out.reset, 'loss_of_lock');
  assert.equal(out.epochs, 1);
  assert.equal(out.pseudorange, rho + 3);
  // The same jump unflagged on L1 alone (no second frequency to see it) is caught as a code-carrier jump.
  const single = slipAt((rho) => ({ ...observe('G05', rho, 3, 0, 1500, 700), carrierPhase2: undefined }), l1only);
  assert.equal(single.out.reset, 'code_carrier');
});

test('an unflagged one-cycle L1 slip is a geometry-free jump; a 77/60-cycle slip the geometry-free combination cannot see is a Melbourne-Wubbena jump', () => {
  const gf = slipAt((rho) => observe('G05', rho, 3, 0, 501, 700));
  assert.equal(gf.out.reset, 'geometry_free');
  assert.equal(gf.hatch.resets.geometry_free, 1);
  // 77 L1 cycles and 60 L2 cycles are the same length (f1/f2 = 77/60): the geometry-free phase
  // does not move, the wide lane moves by 17 cycles.
  const mw = slipAt((rho) => observe('G05', rho, 3, 0, 577, 760));
  assert.equal(mw.out.reset, 'melbourne_wubbena');
  const clean = slipAt((rho) => observe('G05', rho, 3, 0, 500, 700));
  assert.equal(clean.out.reset, undefined);
  assert.equal(clean.out.epochs, 21);
});

test('an outage longer than five intervals restarts the filter; a short one does not', () => {
  const hatch = new HatchFilter();
  for (let k = 0; k < 10; k++) hatch.update(30 * k, [observe('G07', 2e7, 3, 0, 1, 2), observe('G08', 2.1e7, 3, 0, 1, 2)], gps);
  // G07 misses three epochs (120 s since its last), G08 six (210 s); the data rate is 30 s.
  hatch.update(300, [observe('G08', 2.1e7, 3, 0, 1, 2)], gps);
  const out = hatch.update(390, [observe('G07', 2e7, 3, 0, 1, 2)], gps);
  assert.equal(out[0].reset, undefined);
  const late = hatch.update(510, [observe('G08', 2.1e7, 3, 0, 1, 2)], gps);
  assert.equal(late[0].reset, 'gap');
});
