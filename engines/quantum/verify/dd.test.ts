import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matmul } from '../matrix.ts';
import { ComplexTable, ONE, ZERO } from './complex-table.ts';
import { Dd, nodeOf, weightOf } from './dd.ts';
import { GateBuilder, type Gate } from './gates.ts';
import { Ops } from './ops.ts';
import { u3 } from '../optimizer/gates1q.ts';
import { rng } from '../optimizer/sim.ts';

/** The dense matrix (row-major, interleaved re/im) of an edge on n qubits. */
function dense(dd: Dd, e: number, n: number): Float64Array {
  const dim = 1 << n;
  const out = new Float64Array(2 * dim * dim);
  const walk = (edge: number, v: number, row: number, col: number, re: number, im: number): void => {
    const w = weightOf(edge);
    if (w === ZERO) return;
    const r2 = re * dd.ct.re[w] - im * dd.ct.im[w];
    const i2 = re * dd.ct.im[w] + im * dd.ct.re[w];
    if (v < 0) {
      out[2 * (row * dim + col)] = r2;
      out[2 * (row * dim + col) + 1] = i2;
      return;
    }
    for (let q = 0; q < 4; q++) walk(dd.child(nodeOf(edge), q), v - 1, row | ((q >> 1) << v), col | ((q & 1) << v), r2, i2);
  };
  walk(e, n - 1, 0, 0, 1, 0);
  return out;
}

/** The dense matrix of a controlled gate, built column by column from its definition. */
function denseGate(g: Gate, n: number): Float64Array {
  const dim = 1 << n;
  const k = g.targets.length;
  const out = new Float64Array(2 * dim * dim);
  for (let x = 0; x < dim; x++) {
    if (!g.controls.every((c) => x & (1 << c))) {
      out[2 * (x * dim + x)] = 1;
      continue;
    }
    let sub = 0;
    g.targets.forEach((t, j) => (sub |= ((x >> t) & 1) << j));
    for (let r = 0; r < 1 << k; r++) {
      let y = x;
      g.targets.forEach((t, j) => (y = (y & ~(1 << t)) | (((r >> j) & 1) << t)));
      out[2 * (y * dim + x)] = g.m[2 * (r * (1 << k) + sub)];
      out[2 * (y * dim + x) + 1] = g.m[2 * (r * (1 << k) + sub) + 1];
    }
  }
  return out;
}

const close = (a: Float64Array, b: Float64Array): number => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

function randomGate(n: number, r: () => number): Gate {
  const order = [...Array(n).keys()].sort(() => r() - 0.5);
  const two = r() < 0.3;
  const targets = order.slice(0, two ? 2 : 1);
  const controls = order.slice(targets.length, targets.length + Math.floor(r() * 3));
  const m = two ? matmul(kron2(u3(r() * 6, r() * 6, r() * 6), u3(r() * 6, r() * 6, r() * 6)), cxMat()) : u3(r() * 6, r() * 6, r() * 6);
  return { targets, controls, m };
}

function kron2(hi: Float64Array, lo: Float64Array): Float64Array {
  const out = new Float64Array(32);
  for (let a = 0; a < 2; a++) for (let b = 0; b < 2; b++) for (let c = 0; c < 2; c++) for (let d = 0; d < 2; d++) {
    const i = 2 * ((2 * a + c) * 4 + 2 * b + d);
    const x = 2 * (a * 2 + b);
    const y = 2 * (c * 2 + d);
    out[i] = hi[x] * lo[y] - hi[x + 1] * lo[y + 1];
    out[i + 1] = hi[x] * lo[y + 1] + hi[x + 1] * lo[y];
  }
  return out;
}

function cxMat(): Float64Array {
  const m = new Float64Array(32);
  for (const [r, c] of [[0, 0], [3, 1], [2, 2], [1, 3]]) m[2 * (r * 4 + c)] = 1;
  return m;
}

test('the complex table gives values within the tolerance one id, and keeps distinct values apart', () => {
  const t = new ComplexTable(1e-12);
  const a = t.lookup(Math.SQRT1_2, -0.25);
  assert.equal(t.lookup(Math.SQRT1_2 + 4e-13, -0.25 - 4e-13), a);
  assert.equal(t.lookup(Math.SQRT1_2 - 9e-13, -0.25), a);
  assert.notEqual(t.lookup(Math.SQRT1_2 + 1e-9, -0.25), a);
  assert.equal(t.lookup(1 - 1e-13, 5e-13), ONE);
  assert.equal(t.lookup(3e-13, -2e-13), ZERO);
});

test('gate diagrams expand to the dense matrix of the controlled gate', () => {
  const r = rng(7);
  for (let trial = 0; trial < 40; trial++) {
    const n = 3 + (trial % 3);
    const dd = new Dd(n);
    const g = randomGate(n, r);
    for (const adjoint of [false, true]) {
      const e = new GateBuilder(dd).build(g, adjoint);
      let want = denseGate(g, n);
      if (adjoint) want = conjugateTranspose(want, 1 << n);
      assert.ok(close(dense(dd, e, n), want) < 1e-12, `trial ${trial} adjoint ${adjoint}`);
    }
  }
});

function conjugateTranspose(a: Float64Array, dim: number): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < dim; i++) for (let j = 0; j < dim; j++) {
    out[2 * (j * dim + i)] = a[2 * (i * dim + j)];
    out[2 * (j * dim + i) + 1] = -a[2 * (i * dim + j) + 1];
  }
  return out;
}

test('products and sums of diagrams match the dense products and sums, and survive a collection', () => {
  const r = rng(11);
  const n = 4;
  const dd = new Dd(n);
  const ops = new Ops(dd);
  const b = new GateBuilder(dd);
  let e = dd.identity();
  let want = dense(dd, e, n);
  for (let i = 0; i < 30; i++) {
    const g = randomGate(n, r);
    e = ops.mul(b.build(g, false), e);
    want = matmul(denseGate(g, n), want);
  }
  assert.ok(close(dense(dd, e, n), want) < 1e-10);
  const sum = ops.add(e, e);
  assert.ok(close(dense(dd, sum, n), want.map((x) => 2 * x)) < 1e-10);
  const before = dd.count;
  [e] = dd.collect([e]);
  ops.clear();
  assert.ok(dd.count < before, 'the sum and the gates are garbage after the collection');
  assert.ok(close(dense(dd, e, n), want) < 1e-10);
  assert.equal(ops.maxAbs(ops.add(e, ops.scale(e, dd.ct.lookup(-1, 0)))), 0);
});

test('a gate times its adjoint is the identity node itself', () => {
  const r = rng(3);
  const dd = new Dd(5);
  const ops = new Ops(dd);
  const b = new GateBuilder(dd);
  for (let i = 0; i < 20; i++) {
    const g = randomGate(5, r);
    assert.equal(ops.mul(b.build(g, false), b.build(g, true)), dd.identity());
  }
});
