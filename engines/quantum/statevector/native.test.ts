import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit, Operation } from '../circuit.ts';
import { emptyCircuit } from '../circuit.ts';
import { ghzCircuit, qftCircuit, randomLayeredCircuit } from '../circuits.ts';
import { gateMatrix } from '../gates.ts';
import { missingCpuFeatures, nativeStatevector } from '../native/index.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng, sampleFromState } from '../sampling.ts';
import { run } from '../run.ts';
import { compile } from './fusion.ts';
import { marginalNative, runNative, sampleNative } from './native.ts';
import { planNative } from './native-plan.ts';
import { memoryLimitBytes } from './state.ts';
import { runSteps } from './parallel.ts';

const native = nativeStatevector();
const skip = native ? false : 'the native kernels are not built on this machine';

/** The JavaScript kernels' result, unfused gate by gate. */
function reference(c: Circuit): Float64Array {
  const st = new Float64Array(2 * 2 ** c.numQubits);
  st[0] = 1;
  runSteps(st, c.numQubits, compile(c.ops));
  return st;
}

const ONE = ['h', 'x', 'y', 'z', 's', 'sdg', 't', 'tdg', 'sx', 'rx', 'ry', 'rz', 'p', 'u3'];
const TWO = ['cx', 'cz', 'cy', 'ch', 'cp', 'crz', 'crx', 'cu3', 'swap', 'rzz', 'rxx', 'iswap'];
const THREE = ['ccx', 'cswap', 'ccz'];

/** A circuit mixing every kind of op the planner handles: dense, diagonal, controlled, permutations, explicit unitaries. */
function mixedCircuit(n: number, gates: number, seed: number): Circuit {
  const rng = new Rng(seed);
  const c = emptyCircuit(n);
  const pick = <T,>(xs: T[]): T => xs[Math.floor(rng.next() * xs.length)]!;
  const distinct = (k: number): number[] => {
    const qs = new Set<number>();
    while (qs.size < k) qs.add(Math.floor(rng.next() * n));
    return [...qs];
  };
  for (let g = 0; g < gates; g++) {
    const r = rng.next();
    let op: Operation;
    if (r < 0.45) {
      const name = pick(ONE);
      const np = name === 'u3' ? 3 : ['rx', 'ry', 'rz', 'p'].includes(name) ? 1 : 0;
      op = { kind: 'gate', name, qubits: distinct(1), params: Array.from({ length: np }, () => rng.next() * 6) };
    } else if (r < 0.85 || n < 3) {
      const name = pick(TWO);
      const np = name === 'cu3' ? 3 : ['cp', 'crz', 'crx', 'rzz', 'rxx'].includes(name) ? 1 : 0;
      op = { kind: 'gate', name, qubits: distinct(2), params: Array.from({ length: np }, () => rng.next() * 6) };
    } else if (r < 0.95) {
      op = { kind: 'gate', name: pick(THREE), qubits: distinct(3), params: [] };
    } else {
      // A 3-qubit unitary built from gates, as an explicit matrix.
      const m = gateMatrix('ccx', []);
      op = { kind: 'unitary', label: 'u', qubits: distinct(3), matrix: m };
    }
    c.ops.push(op);
  }
  return c;
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}

test('native kernels match the JavaScript kernels on mixed circuits, with one pass and with many', { skip }, () => {
  for (const [n, local] of [[3, 15], [6, 4], [9, 5], [11, 8], [13, 9], [12, 15]] as const) {
    for (let seed = 1; seed <= 4; seed++) {
      const c = mixedCircuit(n, 120, seed * 31 + n);
      const r = runNative(c.ops, n, { force: true, localQubits: local })!;
      assert.ok(r.view, 'a small state is visible to JavaScript');
      const d = maxDiff(r.view!, reference(c));
      assert.ok(d < 1e-12, `n=${n} local=${local} seed=${seed}: max |Δ| ${d}`);
      if (local < n) assert.ok(r.passes > 1, `n=${n} local=${local} ran in ${r.passes} pass(es)`);
    }
  }
});

test('GHZ, QFT and layered random circuits agree with the JavaScript kernels across pass boundaries', { skip }, () => {
  for (const c of [ghzCircuit(16), qftCircuit(14), randomLayeredCircuit(17, 6, 3)]) {
    const r = runNative(c.ops, c.numQubits, { force: true, localQubits: 10 })!;
    assert.ok(maxDiff(r.view!, reference(c)) < 1e-12);
  }
  const ghz = runNative(ghzCircuit(20).ops, 20, { force: true })!.view!;
  assert.ok(Math.abs(ghz[0]! - Math.SQRT1_2) < 1e-15 && Math.abs(ghz[2 * (2 ** 20 - 1)]! - Math.SQRT1_2) < 1e-15);
});

test('native sampling draws the same shots as the JavaScript sampler from the same state', { skip }, () => {
  const c = randomLayeredCircuit(12, 5, 9);
  const r = runNative(c.ops, 12, { force: true })!;
  const ours = sampleNative(r, 5000, new Rng(42));
  const js = sampleFromState(new Float64Array(r.view!), 5000, new Rng(42));
  assert.deepEqual(Array.from(ours), Array.from(js));
  assert.deepEqual(Array.from(sampleNative(r, 5000, new Rng(42))), Array.from(ours), 'same seed, same shots');
});

test('marginal probabilities sum the squared amplitudes of each outcome', { skip }, () => {
  const c = randomLayeredCircuit(10, 4, 5);
  const r = runNative(c.ops, 10, { force: true })!;
  const m = marginalNative(r, [7, 2]);
  const want = new Float64Array(4);
  for (let i = 0; i < 2 ** 10; i++) want[((i >> 7) & 1) | (((i >> 2) & 1) << 1)] += r.view![2 * i]! ** 2 + r.view![2 * i + 1]! ** 2;
  assert.ok(maxDiff(m, want) < 1e-14);
  assert.ok(Math.abs(m.reduce((a, b) => a + b, 0) - 1) < 1e-12);
});

test('the planner puts diagonal gates and controls on inactive qubits without activating them', () => {
  // 12 qubits, 6 active per pass: the controlled phases reach qubits outside every pass.
  const c = qftCircuit(12);
  const p = planNative(c.ops, 12, 6)!;
  assert.ok(p.passes >= 2 && p.passes < c.ops.length / 4, `${p.passes} passes for ${c.ops.length} gates`);
});

test('the native program is validated before it runs', { skip }, () => {
  const st = new Float64Array(32);
  st[0] = 1;
  assert.throws(() => native!.run(st, 4, Int32Array.of(1, 2, 0, 0, 1), new Float64Array(0), 1), /bad local qubit/);
  assert.throws(() => native!.run(st, 5, Int32Array.of(0), new Float64Array(0), 1), /does not hold/);
  assert.throws(() => native!.run(st, 4, Int32Array.of(1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), new Float64Array(0), 1), /truncated/);
  // One pass (4 local bits), one X on local bit 3 controlled by local bit 3.
  const controlOnTarget = Int32Array.of(1, 4, 0, 1, 2, 3, 1, 6, 8, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  assert.throws(() => native!.run(st, 4, controlOnTarget, new Float64Array(0), 1), /control is also a target/);
  assert.equal(st[0], 1, 'a rejected program changes nothing');
  assert.throws(() => native!.allocState(20), /29 to 34/);
});

// The run checks that 8 GiB could be had before it starts (it then touches only a few pages).
const skip29 = skip || (memoryLimitBytes() * 0.9 < 2 ** 33 ? 'this machine has less than 9 GiB for an 8 GiB state' : false);

test('a 29-qubit state lives in native memory: sampled, summarised and freed there', { skip: skip29 }, () => {
  // Only the first pass's chunk is ever written; the rest of the 8 GiB stays untouched zero pages.
  const c = emptyCircuit(29, 3);
  c.ops.push({ kind: 'gate', name: 'h', qubits: [0], params: [] }, { kind: 'gate', name: 'x', qubits: [28], params: [] });
  c.ops.push({ kind: 'measure', qubit: 0, clbit: 0 }, { kind: 'measure', qubit: 28, clbit: 1 }, { kind: 'measure', qubit: 14, clbit: 2 });
  const r = run(c, { shots: 200, seed: 3, probabilities: true });
  assert.deepEqual(Object.keys(r.counts).sort(), ['010', '011']);
  assert.equal(r.counts['010']! + r.counts['011']!, 200);
  assert.ok(Math.abs(r.probabilities!['010']! - 0.5) < 1e-12 && Math.abs(r.probabilities!['011']! - 0.5) < 1e-12);
  assert.deepEqual(run(c, { shots: 200, seed: 3 }).counts, r.counts, 'same seed, same shots');
  assert.throws(() => run(c, { shots: 1, statevector: true }), /too large to return/);
  const big = native!.allocState(29);
  native!.freeState(big);
  assert.throws(() => native!.marginal(big, 29, Int32Array.of(0), new Float64Array(2)), /freed/);
});

test('a binary built for CPU features this machine lacks is not loaded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-cpu-'));
  const cpuinfo = join(dir, 'cpuinfo');
  writeFileSync(cpuinfo, 'processor\t: 0\nflags\t\t: fpu sse sse2 avx avx2 fma\n');
  const record = join(dir, 'cpu-flags.json');
  writeFileSync(record, JSON.stringify({ arch: process.arch, flags: ['sse2', 'avx2', 'avx512f', 'avx512bw'] }));
  assert.deepEqual(missingCpuFeatures(record, cpuinfo), ['avx512f', 'avx512bw']);
  writeFileSync(record, JSON.stringify({ arch: process.arch, flags: ['sse2', 'avx2'] }));
  assert.deepEqual(missingCpuFeatures(record, cpuinfo), []);
  writeFileSync(record, JSON.stringify({ arch: 'an-other-arch', flags: [] }));
  assert.deepEqual(missingCpuFeatures(record, cpuinfo), ['arch an-other-arch']);
  assert.deepEqual(missingCpuFeatures(join(dir, 'absent.json'), cpuinfo), [], 'no record: nothing to compare');
});

test('with the native kernels switched off the command line gives the same counts from the JavaScript kernels', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-native-'));
  const file = join(dir, 'c.qasm');
  let src = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[12];\ncreg c[12];\n';
  for (let i = 0; i < 12; i++) src += `u3(${0.3 * i},${0.2 * i},0.1) q[${i}];\n`;
  for (let i = 0; i < 11; i++) src += `cx q[${i}],q[${i + 1}];\n`;
  src += 'measure q -> c;\n';
  writeFileSync(file, src);
  const bin = new URL('../../../bin/lattice.mjs', import.meta.url).pathname;
  const runWith = (env: Record<string, string>): unknown =>
    JSON.parse(execFileSync(process.execPath, [bin, 'circuit', 'run', file, '--shots', '4000', '--seed', '9', '--json'], { env: { ...process.env, ...env }, encoding: 'utf8' })).counts;
  assert.deepEqual(runWith({ LATTICE_NATIVE: '0' }), runWith({}));
});

test('a run of diagonal gates becomes one table op, applied in one sweep, with the same amplitudes', { skip }, () => {
  const c = emptyCircuit(12);
  for (let q = 0; q < 12; q++) c.ops.push({ kind: 'gate', name: 'h', qubits: [q], params: [] });
  const diag: Array<[string, number[], number[]]> = [['cp', [4, 9], [0.7]], ['cp', [5, 9], [1.1]], ['cz', [4, 6], []], ['cp', [6, 11], [0.4]], ['cz', [5, 11], []], ['cp', [4, 11], [2.1]], ['cz', [6, 9], []], ['ccz', [4, 5, 11], []]];
  for (const [name, qubits, params] of diag) c.ops.push({ kind: 'gate', name, qubits, params });
  for (let q = 0; q < 12; q++) c.ops.push({ kind: 'gate', name: 'sx', qubits: [q], params: [] });
  const fused = planNative(c.ops, 12, 15)!;
  // Eight diagonal gates on qubits {4, 5, 6, 9, 11} (each alone sweeps a quarter or an
  // eighth of the chunk; together 1.9 chunks): one op. Around it, h then sx on each of
  // those five qubits (the diagonal run keeps them apart), one fused h·sx on the other seven.
  assert.equal(fused.passes, 1);
  assert.equal(fused.ops, 2 * 5 + 1 + 7);
  for (const localQubits of [15, 6, 5]) {
    const r = runNative(c.ops, 12, { force: true, localQubits })!;
    assert.ok(maxDiff(r.view!, reference(c)) < 1e-12, `${localQubits} local qubits`);
  }
});

test('every pass keeps the lowest qubits in its lowest local bits, and gates on them agree in both precisions', { skip }, () => {
  // 13 qubits in passes of 9: the 3 lowest qubits (4 in single) stay local bits 0.. of each pass.
  const n = 13;
  for (const [precision, lowBits, tolerance] of [['double', 3, 1e-12], ['single', 4, 2e-6]] as const) {
    for (let seed = 1; seed <= 3; seed++) {
      const c = mixedCircuit(n, 150, seed * 17 + 5);
      const program = planNative(c.ops, n, 9, lowBits)!;
      let at = 1;
      for (let p = 0; p < program.passes; p++) {
        const a = program.ints[at]!;
        const globalOf = Array.from(program.ints.subarray(at + 1, at + 1 + a));
        assert.deepEqual(globalOf.slice(0, lowBits), Array.from({ length: lowBits }, (_, q) => q), `pass ${p} of seed ${seed}`);
        at += 2 + a + 12 * program.ints[at + 1 + a]!;
      }
      assert.ok(program.passes > 1);
      const r = runNative(c.ops, n, { force: true, localQubits: 9, precision })!;
      const d = maxDiff(r.view!, reference(c));
      assert.ok(d < tolerance, `${precision} seed=${seed}: max |Δ| ${d}`);
    }
  }
});
