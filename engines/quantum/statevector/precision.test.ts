import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { qftCircuit, randomLayeredCircuit } from '../circuits.ts';
import { nativeStatevector } from '../native/index.ts';
import { run } from '../run.ts';
import { runNative } from './native.ts';
import { simulateStatevector } from './simulate.ts';

const skip = nativeStatevector() ? false : 'the native kernels are not built on this machine';

/** Max per-amplitude |Δ|, the 2-norm of the difference, and 1 - |<a|b>|^2 / (<a|a><b|b>). */
function compare(a: ArrayLike<number>, b: ArrayLike<number>): { maxAbs: number; norm: number; infidelity: number } {
  let maxAbs = 0;
  let sq = 0;
  let re = 0;
  let im = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 2) {
    const [ar, ai, br, bi] = [a[i]!, a[i + 1]!, b[i]!, b[i + 1]!];
    const d = Math.hypot(ar - br, ai - bi);
    maxAbs = Math.max(maxAbs, d);
    sq += d * d;
    re += ar * br + ai * bi;
    im += ar * bi - ai * br;
    na += ar * ar + ai * ai;
    nb += br * br + bi * bi;
  }
  return { maxAbs, norm: Math.sqrt(sq), infidelity: 1 - (re * re + im * im) / (na * nb) };
}

// The bounds README.md states for single precision on depth-20 random circuits at 20 qubits.
const MAX_ABS = 1e-7;
const NORM = 1e-5;
const INFIDELITY = 1e-9;

test('single precision agrees with double within the stated bounds on depth-20 random circuits at 20 qubits', { skip }, () => {
  for (const seed of [7, 11]) {
    const c = randomLayeredCircuit(20, 20, seed);
    const double = simulateStatevector(c);
    const single = simulateStatevector(c, { precision: 'single' });
    const e = compare(double, single);
    // Single precision really ran: its rounding shows (a double run would agree to ~1e-15).
    assert.ok(e.maxAbs > 1e-12, `seed ${seed}: single and double agree to ${e.maxAbs}: was single precision used?`);
    assert.ok(e.maxAbs < MAX_ABS, `seed ${seed}: max |Δamp| ${e.maxAbs}`);
    assert.ok(e.norm < NORM, `seed ${seed}: ||Δ|| ${e.norm}`);
    assert.ok(e.infidelity < INFIDELITY, `seed ${seed}: 1 - F ${e.infidelity}`);
  }
});

test('a single-precision run holds complex64 amplitudes and crosses pass boundaries like double', { skip }, () => {
  const c = qftCircuit(14);
  const single = runNative(c.ops, 14, { precision: 'single', localQubits: 9 })!;
  assert.ok(single.view instanceof Float32Array, 'the state is a Float32Array');
  assert.equal(single.view.length, 2 * 2 ** 14);
  assert.ok(single.passes > 1, `ran in ${single.passes} pass(es)`);
  const double = runNative(c.ops, 14, { localQubits: 9 })!;
  const e = compare(double.view!, single.view);
  assert.ok(e.maxAbs < 1e-7 && e.infidelity < 1e-9, `QFT-14: max |Δ| ${e.maxAbs}, 1 - F ${e.infidelity}`);
});

test('run() in single precision reports half the memory, and its probabilities, statevector and counts match double', { skip }, () => {
  const c = randomLayeredCircuit(12, 10, 3);
  c.numClbits = 12;
  c.cregs = [{ name: 'c', size: 12, offset: 0 }];
  for (let q = 0; q < 12; q++) c.ops.push({ kind: 'measure', qubit: q, clbit: q });
  const d = run(c, { shots: 20_000, seed: 4, probabilities: true, statevector: true });
  const s = run(c, { shots: 20_000, seed: 4, probabilities: true, statevector: true, precision: 'single' });
  assert.equal(s.memoryBytes * 2, d.memoryBytes);
  assert.ok(s.statevector instanceof Float64Array && s.statevector.length === d.statevector!.length);
  assert.ok(compare(d.statevector!, s.statevector).maxAbs < 1e-6);
  let worst = 0;
  for (const [k, p] of Object.entries(d.probabilities!)) worst = Math.max(worst, Math.abs(p - (s.probabilities![k] ?? 0)));
  assert.ok(worst < 1e-6, `probabilities differ by ${worst}`);
  // The same seed draws the same uniforms; outcomes can only move where a cumulative sum differs by the rounding.
  let moved = 0;
  for (const [k, n] of Object.entries(d.counts)) moved += Math.abs(n - (s.counts[k] ?? 0));
  assert.ok(moved <= 20, `${moved} shots moved between outcomes`);
});

test('an unknown precision is refused', () => {
  assert.throws(() => run(qftCircuit(3), { precision: 'half' as 'single' }), /unknown precision 'half'/);
});

test('without the native kernels single precision runs the JavaScript kernels in double, and the CLI takes --precision', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'lattice-precision-')), 'c.qasm');
  writeFileSync(file, 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[11];\nh q[0];\nfor_each_cx;\n'.replace('for_each_cx;\n', Array.from({ length: 10 }, (_, i) => `cx q[${i}],q[${i + 1}];\nu3(0.3,0.2,0.1) q[${i}];\n`).join('')));
  const bin = new URL('../../../bin/lattice.mjs', import.meta.url).pathname;
  const sv = (precision: string, env: Record<string, string>): number[] =>
    (JSON.parse(execFileSync(process.execPath, [bin, 'circuit', 'run', file, '--shots', '10', '--seed', '1', '--statevector', '--precision', precision, '--json'], { env: { ...process.env, ...env }, encoding: 'utf8' })) as { statevector: number[] }).statevector;
  const jsDouble = sv('double', { LATTICE_NATIVE: '0' });
  assert.deepEqual(sv('single', { LATTICE_NATIVE: '0' }), jsDouble);
  if (!skip) {
    const e = compare(jsDouble, sv('single', {}));
    assert.ok(e.maxAbs > 0 && e.maxAbs < 1e-6, `native single vs double: ${e.maxAbs}`);
  }
  assert.throws(() => execFileSync(process.execPath, [bin, 'circuit', 'run', file, '--precision', 'half'], { encoding: 'utf8', stdio: 'pipe' }), /--precision must be double or single/);
});
