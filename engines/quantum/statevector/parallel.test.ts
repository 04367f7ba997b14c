import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { randomLayeredCircuit, qftCircuit } from '../circuits.ts';
import { compile } from './fusion.ts';
import { closeWorkerPool, runStepsOnPool } from './parallel.ts';
import { runStepAll } from './steps.ts';

after(() => closeWorkerPool());

test('worker threads on shared memory give the same state as one thread', () => {
  const n = 12;
  for (const c of [randomLayeredCircuit(n, 6, 3), qftCircuit(n)]) {
    const steps = compile(c.ops);
    const seq = new Float64Array(2 * 2 ** n);
    seq[0] = 1;
    for (const s of steps) runStepAll(seq, s);
    const par = new Float64Array(new SharedArrayBuffer(8 * 2 * 2 ** n));
    par[0] = 1;
    const ran = runStepsOnPool(par, steps);
    if (!ran) {
      // One-core machines have no pool; the sequential path is the one that runs there.
      assert.equal(process.env.LATTICE_SIM_THREADS, '1');
      continue;
    }
    let d = 0;
    for (let i = 0; i < seq.length; i++) d = Math.max(d, Math.abs(seq[i]! - par[i]!));
    assert.ok(d < 1e-12, `max difference ${d}`);
  }
});

test('fusion keeps the circuit the same operation', () => {
  const n = 6;
  const c = randomLayeredCircuit(n, 5, 9);
  const fused = new Float64Array(2 * 2 ** n);
  fused[0] = 1;
  for (const s of compile(c.ops)) runStepAll(fused, s);
  const plain = new Float64Array(2 * 2 ** n);
  plain[0] = 1;
  for (const op of c.ops) for (const s of compile([op])) runStepAll(plain, s);
  for (let i = 0; i < plain.length; i++) assert.ok(Math.abs(plain[i]! - fused[i]!) < 1e-12);
  assert.ok(compile(c.ops).length < c.ops.length);
});
