// The counts' distance from the ideal distribution on a job's page: exact on known counts, zero
// only when the counts are exactly the ideal split, and not computed where the final state does
// not give the outcome distribution.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BELL } from '../testing.ts';
import { measuredDistance } from './page-quality.ts';

test('a Bell pair measured 480/520 is 0.02 from the ideal half and half, beside what 1000 shots give by chance', () => {
  const d = measuredDistance(BELL, { '00': 480, '11': 520 })!;
  assert.ok(Math.abs(d.tvd - 0.02) < 1e-12, String(d.tvd));
  // ½ · 2 · √(2 · ¼ / (π · 1000)) for the two outcomes of probability ½.
  assert.ok(Math.abs(d.samplingTvd - Math.sqrt(0.5 / (Math.PI * 1000))) < 1e-12, String(d.samplingTvd));
  assert.equal(d.shots, 1000);
});

test('outcomes the ideal circuit never gives count whole, and an exact split is 0', () => {
  assert.ok(Math.abs(measuredDistance(BELL, { '00': 450, '11': 450, '01': 100 })!.tvd - 0.1) < 1e-12);
  assert.ok(measuredDistance(BELL, { '00': 500, '11': 500 })!.tvd < 1e-12);
});

test('no figure for a mid-circuit measurement or a circuit that does not parse', () => {
  const mid = ['OPENQASM 2.0;', 'include "qelib1.inc";', 'qreg q[1];', 'creg c[2];', 'h q[0];', 'measure q[0] -> c[0];', 'h q[0];', 'measure q[0] -> c[1];'].join('\n');
  assert.equal(measuredDistance(mid, { '00': 10 }), null);
  assert.equal(measuredDistance('not qasm', { '0': 1 }), null);
});
