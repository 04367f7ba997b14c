import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kron, mul, phaseBetween } from './complex.ts';
import { oneQubitSet, productOf, synth1q } from './euler.ts';
import { matrix1q, u3 } from './gates1q.ts';
import { matrixOf, synth2q } from './kak.ts';
import { rng } from './sim.ts';
import { parseBasis } from './basis.ts';
import type { IrOp } from './ir.ts';

const SETS = [['u3'], ['rz', 'sx', 'x'], ['rz', 'sx'], ['p', 'sx'], ['rz', 'ry'], ['rz', 'rx'], ['rx', 'ry'], ['rz', 'h'], ['u1', 'sxdg'], ['r', 'rz']];

test('single-qubit synthesis is exact (phase returned) in every supported 1q gate set', () => {
  const r = rng(5);
  for (const names of SETS) {
    const set = oneQubitSet(names);
    for (let i = 0; i < 60; i++) {
      const u = i % 3 === 0 ? u3(Math.PI / 2, r() * 7, r() * 7) : u3(r() * 7, r() * 7, r() * 7);
      const s = synth1q(u, set);
      assert.ok(s.gates.every((g) => names.includes(g.name)), `${names}: used ${s.gates.map((g) => g.name)}`);
      const ph = phaseBetween(u, productOf(s.gates), 1e-8);
      assert.ok(ph !== null && Math.abs(Math.cos(ph - s.phase) - 1) < 1e-9, `${names}: wrong product or phase`);
      assert.ok(s.gates.length <= 5);
    }
  }
});

test('single-qubit synthesis uses one gate for gates of the set and rotations about Z', () => {
  assert.deepEqual(synth1q(matrix1q('h', []) as Float64Array, oneQubitSet(['rz', 'h'])).gates.map((g) => g.name), ['h']);
  assert.equal(synth1q(matrix1q('t', []) as Float64Array, oneQubitSet(['rz', 'sx', 'x'])).gates.length, 1);
  assert.equal(synth1q(matrix1q('x', []) as Float64Array, oneQubitSet(['rz', 'sx', 'x'])).gates.length, 1);
  assert.equal(synth1q(matrix1q('h', []) as Float64Array, oneQubitSet(['rz', 'sx', 'x'])).gates.length, 3);
});

test('a basis that cannot express every 1q gate or has no entangling gate is refused', () => {
  assert.throws(() => parseBasis(['cx', 'h', 't']), /cannot express/);
  assert.throws(() => parseBasis(['rz', 'sx']), /two-qubit/);
  assert.doesNotThrow(() => parseBasis(['rxx', 'rz', 'ry']));
});

function randomLocal(r: () => number): Float64Array {
  return kron(u3(r() * 7, r() * 7, r() * 7), u3(r() * 7, r() * 7, r() * 7));
}

test('KAK resynthesis is exact and uses the minimal CX count for 0, 1, 2 and 3 CX unitaries', () => {
  const r = rng(9);
  const cxCircuit = (k: number): Float64Array => {
    const ops: IrOp[] = [];
    const one = (): void => void ops.push({ k: 'u', q: 0, m: u3(r() * 7, r() * 7, r() * 7) }, { k: 'u', q: 1, m: u3(r() * 7, r() * 7, r() * 7) });
    one();
    for (let i = 0; i < k; i++) {
      ops.push(r() < 0.5 ? { k: 'cx', c: 0, t: 1 } : { k: 'cx', c: 1, t: 0 });
      one();
    }
    return matrixOf(ops, 0, 1);
  };
  for (let k = 0; k <= 3; k++) {
    for (let trial = 0; trial < 25; trial++) {
      const u = cxCircuit(k);
      const s = synth2q(u, 0, 1);
      assert.equal(s.cx, k, `a ${k}-CX unitary took ${s.cx} CX`);
      const ph = phaseBetween(u, matrixOf(s.ops, 0, 1), 1e-8);
      assert.ok(ph !== null && Math.abs(Math.cos(ph - s.phase) - 1) < 1e-9);
    }
  }
  const swap = matrixOf([{ k: 'cx', c: 0, t: 1 }, { k: 'cx', c: 1, t: 0 }, { k: 'cx', c: 0, t: 1 }], 0, 1);
  assert.equal(synth2q(mul(randomLocal(r), swap), 0, 1).cx, 3);
  assert.equal(synth2q(randomLocal(r), 4, 2).cx, 0);
});
