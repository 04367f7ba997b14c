import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit } from '../circuit.ts';
import { emptyCircuit } from '../circuit.ts';
import { nativeStatevector } from '../native/index.ts';
import type { NoiseModel } from '../noise.ts';
import { Rng } from '../sampling.ts';
import { densityMatrixNative } from './native.ts';
import { checkDensitySize, densityMatrixJs } from './simulate.ts';

const skip = nativeStatevector() ? false : 'the native kernels are not built on this machine';
const noise: NoiseModel = { depol1: 0.02, depol2: 0.05, t1_us: 30, t2_us: 20, gate_time_1q_ns: 50, gate_time_2q_ns: 400, readout_error: 0.01 };

function randomCircuit(n: number, gates: number, seed: number): Circuit {
  const rng = new Rng(seed);
  const c = emptyCircuit(n, n);
  const q = (): number => Math.floor(rng.next() * n);
  for (let g = 0; g < gates; g++) {
    const r = rng.next();
    const a = q();
    let b = q();
    while (b === a) b = q();
    let d = q();
    while (d === a || d === b) d = q();
    if (r < 0.35) c.ops.push({ kind: 'gate', name: 'u3', qubits: [a], params: [rng.next() * 3, rng.next() * 6, rng.next() * 6] });
    else if (r < 0.7) c.ops.push({ kind: 'gate', name: rng.next() < 0.5 ? 'cx' : 'cp', qubits: [a, b], params: [rng.next() * 6] .slice(0, 1) });
    else if (r < 0.8) c.ops.push({ kind: 'gate', name: 'ccx', qubits: [a, b, d], params: [] });
    else if (r < 0.88) c.ops.push({ kind: 'gate', name: 'id', qubits: [a], params: [] });
    else if (r < 0.94) c.ops.push({ kind: 'measure', qubit: a, clbit: a });
    else c.ops.push({ kind: 'reset', qubit: a });
  }
  for (const op of c.ops) if (op.kind === 'gate' && op.name === 'cx') op.params = [];
  return c;
}

test('the native density matrix equals the JavaScript one, noise, resets and non-selective measurements included', { skip }, () => {
  for (const [n, seed] of [[5, 1], [6, 2], [7, 3]] as const) {
    const c = randomCircuit(n, 40, seed);
    const want = densityMatrixJs(c, noise);
    const got = densityMatrixNative(c, noise)!;
    let d = 0;
    for (let i = 0; i < want.length; i++) d = Math.max(d, Math.abs(want[i]! - got[i]!));
    assert.ok(d < 1e-12, `n=${n}: max |Δρ| ${d}`);
    let trace = 0;
    for (let i = 0; i < 2 ** n; i++) trace += got[2 * (i + i * 2 ** n)]!;
    assert.ok(Math.abs(trace - 1) < 1e-12, 'trace 1');
  }
});

test('the density-matrix limit is 14 qubits on the native kernels, 12 with mid-circuit measurement', { skip }, () => {
  assert.doesNotThrow(() => checkDensitySize(14, false));
  assert.throws(() => checkDensitySize(15, false), /at most 14/);
  assert.throws(() => checkDensitySize(13, true), /at most 12 with mid-circuit/);
});
