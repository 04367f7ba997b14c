import { test } from 'node:test';
import assert from 'node:assert/strict';
import { glonassState } from './glonass.ts';
import { keplerState } from './gps.ts';
import type { GlonassEphemeris } from './types.ts';
import { parseNav } from '../rinex/nav.ts';
import { rinexText } from '../testing/fixtures.ts';
import { shiftEphemeris } from '../simulator/constellation.ts';

test('GPS satellites stay within a(1 +- e) of the Earth centre and their velocity is the derivative of position', () => {
  const nav = parseNav(rinexText('brdc1180.21n'));
  for (const eph of nav.ephemerides.slice(0, 20)) {
    if (eph.kind !== 'kepler') continue;
    const s = keplerState(eph, eph.toe + 600);
    const r = Math.hypot(...s.pos);
    const a0 = eph.sqrtA * eph.sqrtA;
    assert.ok(Math.abs(r - a0) <= a0 * eph.e + 2e3, `${eph.sat} r=${r}`);
    const a = keplerState(eph, eph.toe + 599.5).pos;
    const b = keplerState(eph, eph.toe + 600.5).pos;
    for (let k = 0; k < 3; k++) assert.ok(Math.abs(b[k] - a[k] - s.vel[k]) < 1e-3, `${eph.sat} axis ${k}`);
    assert.ok(Math.abs(s.clock) < 1e-3);
  }
});

test('re-timing an ephemeris keeps the Earth-fixed orbit: same position at the shifted time', () => {
  const nav = parseNav(rinexText('brdc1180.21n'));
  const eph = nav.ephemerides[0];
  assert.ok(eph.kind === 'kepler');
  const shifted = shiftEphemeris(eph, 123456789.5);
  assert.ok(shifted.kind === 'kepler');
  const a = keplerState(eph, eph.toe + 1000);
  const b = keplerState(shifted, eph.toe + 1000 + 123456789.5);
  for (let k = 0; k < 3; k++) assert.ok(Math.abs(a.pos[k] - b.pos[k]) < 1e-3);
  assert.ok(Math.abs(a.clock - b.clock) < 1e-15);
});

test('GLONASS Runge-Kutta integration is reversible and keeps the orbit radius', () => {
  // A GLONASS state vector (PZ-90, metres): slot 1 of a 2021 broadcast message.
  const eph: GlonassEphemeris = {
    kind: 'glonass',
    sat: 'R01',
    toe: 1303600000,
    clockBias: 1.2e-5,
    gammaN: 1e-12,
    pos: [14761398.4375, -4870281.25, 20948081.54296875],
    vel: [-1434.1335296630859, 2585.4024887084961, 1590.8594131469727],
    acc: [0, 0, -2.79396772385e-6],
    health: 0,
    frequencyNumber: 1,
  };
  const fwd = glonassState(eph, eph.toe + 900);
  const r0 = Math.hypot(...eph.pos);
  const r1 = Math.hypot(...fwd.pos);
  assert.ok(Math.abs(r1 - r0) < 50e3, `radius ${r0} -> ${r1}`);
  const back = glonassState({ ...eph, toe: eph.toe + 900, pos: fwd.pos, vel: fwd.vel }, eph.toe);
  for (let k = 0; k < 3; k++) assert.ok(Math.abs(back.pos[k] - eph.pos[k]) < 0.05, `axis ${k}: ${back.pos[k] - eph.pos[k]}`);
  assert.ok(Math.abs(fwd.clock - (1.2e-5 + 900e-12)) < 1e-15);
});
