// Hadamards moved from CX controls to the targets (hflip.ts): exact, and fewer H where they meet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit } from '../circuit.ts';
import { mulberry32 } from '../sampling.ts';
import { equivalenceError } from './equivalence.ts';
import { flipHadamardControls } from './hflip.ts';
import { counts, optimize } from './index.ts';
import { simplify } from './simplify.ts';
import { unroll } from './unroll.ts';
import { circ, nam, type Spec, written } from './testkit.ts';

/** Random circuits made of H-conjugated CX-control runs, H gates, rotations and CX. */
function sites(n: number, blocks: number, seed: number): Circuit {
  const rand = mulberry32(seed);
  const pick = (k: number): number => Math.floor(rand() * k);
  const ops: Spec = [];
  for (let b = 0; b < blocks; b++) {
    const q = pick(n);
    const r = rand();
    if (r < 0.4) {
      const targets = [...Array(n).keys()].filter((x) => x !== q).sort(() => rand() - 0.5).slice(0, 1 + pick(Math.min(3, n - 1)));
      ops.push(['h', [q]]);
      for (const x of targets) ops.push(['cx', [q, x]]);
      ops.push(['h', [q]]);
    } else if (r < 0.6) ops.push(['h', [q]]);
    else if (r < 0.8) ops.push(['rz', [q], [rand() * 6 - 3]]);
    else {
      const t = (q + 1 + pick(n - 1)) % n;
      ops.push(['cx', [q, t]]);
    }
  }
  return circ(n, ops);
}

test('moving H from CX controls to their targets keeps random circuits equal, phase included', () => {
  let moved = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const c = sites(2 + (seed % 4), 40, 4100 + seed);
    const ir = unroll(c);
    // Neutral sites too, so that most circuits get rewritten.
    moved += flipHadamardControls(ir, 0);
    const err = equivalenceError(c, written(ir));
    assert.ok(err < 1e-9, `seed ${seed}: error ${err}`);
  }
  assert.ok(moved > 60, `only ${moved} sites rewritten`);
});

test('an H pair on a CX control becomes one on its target, where it cancels an H', () => {
  // h q1; h q0; cx q0,q1; h q0; t q1 = cx q1,q0; h q1; t q1 (the two H on q1 meet).
  const c = circ(2, [['h', [1]], ['h', [0]], ['cx', [0, 1]], ['h', [0]], ['t', [1]]]);
  const ir = unroll(c);
  assert.equal(flipHadamardControls(ir), 1);
  simplify(ir, 2);
  assert.equal(ir.ops.length, 3);
  assert.ok(ir.ops.some((o) => o.k === 'cx' && o.c === 1 && o.t === 0));
  assert.ok(equivalenceError(c, written(ir)) < 1e-9);
  // With nothing to cancel on the target the H count would not drop: left alone unless asked.
  const plain = circ(2, [['h', [0]], ['cx', [0, 1]], ['h', [0]]]);
  assert.equal(flipHadamardControls(unroll(plain)), 0);
  assert.equal(flipHadamardControls(unroll(plain), 0), 1);
});

test('level 3 takes the H of the controlled swaps of csla_mux_3 off their controls (154 gates before)', () => {
  const c = nam('csla_mux_3');
  const r = optimize(c, { level: 3, basisGates: ['cx', 'h', 'rz', 'x'] });
  const k = counts(r.circuit);
  assert.ok(k.gates <= 148 && k.twoQubit <= 70, `${k.gates} gates, ${k.twoQubit} two-qubit`);
  assert.ok(equivalenceError(c, r.circuit) < 1e-8);
});
