import assert from 'node:assert/strict';
import { test } from 'node:test';
import { equivalenceError } from './equivalence.ts';
import { counts, optimize } from './index.ts';
import { pushPaulis } from './pauli.ts';
import { resynthesizePhaseRegions } from './phasepoly.ts';
import { circ, nam, randomCircuit, written } from './testkit.ts';
import { unroll } from './unroll.ts';

test('pushing X gates to the end as a Pauli frame keeps random circuits equal, phase included', () => {
  for (let seed = 700; seed < 760; seed++) {
    const c = randomCircuit(2 + (seed % 4), 60, seed, { names: ['h', 'x', 'y', 'z', 't', 's', 'sx', 'rz', 'u3', 'cx', 'cz', 'ccx', 'swap'] });
    const ir = unroll(c);
    pushPaulis(ir);
    const err = equivalenceError(c, written(ir));
    assert.ok(err < 1e-9, `seed ${seed}: error ${err}`);
  }
});

test('X gates around a stretch of CX, rotations and H meet in the frame and vanish', () => {
  // x q1 ... x q1 with q1 a CX control twice on the same target: the X spread to q2 cancels;
  // the rotation on q0 after x q0 flips its angle instead of keeping the X.
  const c = circ(3, [['x', [1]], ['cx', [1, 2]], ['t', [2]], ['cx', [1, 2]], ['x', [1]], ['x', [0]], ['rz', [0], [0.3]], ['x', [0]], ['h', [2]]]);
  const ir = unroll(c);
  assert.equal(pushPaulis(ir), 4);
  assert.ok(ir.ops.every((o) => o.k !== 'u' || Math.hypot(o.m[2], o.m[3]) < 1e-12 || o.q === 2), 'no X left on q0 or q1');
  assert.ok(equivalenceError(c, written(ir)) < 1e-9);
});

test('level 3 loses the negated-control X gates of mod_mult_55 (earlier 96 gates with 6 X)', () => {
  const c = nam('mod_mult_55');
  const r = optimize(c, { level: 3, basisGates: ['cx', 'h', 'rz', 'x'] });
  const k = counts(r.circuit);
  assert.ok(k.gates <= 92 && (k.byName.x ?? 0) <= 2, `${k.gates} gates, ${k.byName.x ?? 0} X`);
  assert.ok(equivalenceError(c, r.circuit) < 1e-8);
});

test('parity networks read forwards or backwards stay exact on random CX-phase regions', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const c = randomCircuit(3 + (seed % 6), 80, 900 + seed, { names: ['cx', 'x', 't', 'tdg', 's', 'rz', 'cz'] });
    const ir = unroll(c);
    resynthesizePhaseRegions(ir);
    const err = equivalenceError(c, written(ir));
    assert.ok(err < 1e-9, `seed ${seed}: error ${err}`);
  }
});
