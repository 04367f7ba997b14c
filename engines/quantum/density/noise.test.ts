import assert from 'node:assert/strict';
import { test } from 'node:test';
import { densityMatrix, getBackend, noisyRunMetrics, parseQasm, run, simulateStatevector } from '../index.ts';
import type { NoiseModel } from '../index.ts';
import { densityDistribution } from '../run.ts';

const quiet: NoiseModel = { depol1: 0, depol2: 0, t1_us: Infinity, t2_us: Infinity, gate_time_1q_ns: 1000, gate_time_2q_ns: 2000, readout_error: 0 };
const close = (a: number, b: number, tol = 1e-9): void => assert.ok(Math.abs(a - b) < tol, `${a} != ${b}`);

test('amplitude damping: P(1) decays as exp(-t/T1)', () => {
  const noise = { ...quiet, t1_us: 10, t2_us: 20 };
  const rho = densityMatrix(parseQasm(`OPENQASM 3; qubit q; x q;${' id q;'.repeat(9)}`), noise);
  // Ten gates of 1 us: P(1) = e^{-10/10}.
  close(rho[2 * 3]!, Math.exp(-1));
});

test('dephasing: the coherence decays as exp(-t/T2)', () => {
  const noise = { ...quiet, t1_us: 50, t2_us: 8 };
  const rho = densityMatrix(parseQasm(`OPENQASM 3; qubit q; h q;${' id q;'.repeat(3)}`), noise);
  // |ρ01| = 1/2 e^{-t/T2} with t = 4 us, and P(1) = 1/2 e^{-t/T1} on the damping side: check ρ01.
  const r01 = Math.hypot(rho[2]!, rho[3]!);
  close(r01, 0.5 * Math.exp(-4 / 8), 1e-3);
});

test('depolarizing: repeated X gates shrink the Bloch vector by (1-p) each', () => {
  const p = 0.05;
  const noise = { ...quiet, depol1: p };
  const rho = densityMatrix(parseQasm(`OPENQASM 3; qubit q;${' x q;'.repeat(6)}`), noise);
  close(rho[0]!, (1 + (1 - p) ** 6) / 2);
});

test('readout error flips measured bits with its probability', () => {
  const noise = { ...quiet, readout_error: 0.1 };
  const d = densityDistribution(parseQasm('OPENQASM 3; qubit[2] q; bit[2] c; x q[0]; c = measure q;'), noise);
  close(d[1]!, 0.81);
  close(d[0]!, 0.09);
  close(d[3]!, 0.09);
});

test('trajectories on the statevector agree with the density matrix under backend noise', () => {
  const backend = getBackend('lattice_line_5')!;
  const c = parseQasm('OPENQASM 3; include "stdgates.inc"; qubit[3] q; bit[3] c; h q[0]; cx q[0], q[1]; cx q[1], q[2]; rx(0.4) q[2]; c = measure q;');
  const exact = densityDistribution(c, { ...(noisyModel(backend)), depol1: 0.02, depol2: 0.08 });
  const r = run(c, { shots: 20000, seed: 3, noise: { ...noisyModel(backend), depol1: 0.02, depol2: 0.08 } });
  for (let i = 0; i < 8; i++) {
    const key = i.toString(2).padStart(3, '0');
    close((r.counts[key] ?? 0) / 20000, exact[i]!, 0.015);
  }
});

function noisyModel(b: ReturnType<typeof getBackend>): NoiseModel {
  const cal = b!.calibration!;
  return { depol1: 0, depol2: 0, t1_us: cal.t1_us, t2_us: cal.t2_us, gate_time_1q_ns: cal.gate_time_1q_ns, gate_time_2q_ns: cal.gate_time_2q_ns, readout_error: cal.readout_error };
}

test('the three simulators agree on a noiseless circuit', () => {
  const src = 'OPENQASM 3; include "stdgates.inc"; qubit[5] q; bit[5] c; h q[0]; cx q[0], q[3]; ry(0.7) q[2]; ccx q[0], q[2], q[4]; cp(0.9) q[4], q[1]; h q[1]; swap q[1], q[3]; c = measure q;';
  const c = parseQasm(src);
  const exact = densityDistribution(c);
  const sv = simulateStatevector(c);
  for (let i = 0; i < 32; i++) close(sv[2 * i]! ** 2 + sv[2 * i + 1]! ** 2, exact[i]!, 1e-12);
  for (const method of ['statevector', 'density_matrix', 'mps'] as const) {
    const r = run(c, { method, shots: 20000, seed: 8 });
    for (let i = 0; i < 32; i++) close((r.counts[i.toString(2).padStart(5, '0')] ?? 0) / 20000, exact[i]!, 0.015);
  }
});

test('mps keeps a 100-qubit GHZ state exact with bond dimension 2', () => {
  let src = 'OPENQASM 3; qubit[100] q; bit[100] c; h q[0];';
  for (let i = 0; i < 99; i++) src += `cx q[${i}], q[${i + 1}];`;
  const r = run(parseQasm(src + 'c = measure q;'), { method: 'mps', shots: 200, seed: 4 });
  assert.deepEqual(Object.keys(r.counts).sort(), ['0'.repeat(100), '1'.repeat(100)]);
  assert.equal(r.truncationError, 0);
  assert.equal(r.maxBondReached, 2);
});

test('mps reports truncation error when the bond cap is too small', () => {
  let src = 'OPENQASM 3; include "stdgates.inc"; qubit[8] q; bit[8] c;';
  for (let l = 0; l < 4; l++) {
    for (let i = 0; i < 8; i++) src += `ry(${0.3 + i * 0.2 + l}) q[${i}];`;
    for (let i = l % 2; i + 1 < 8; i += 2) src += `cx q[${i}], q[${i + 1}];`;
  }
  const r = run(parseQasm(src + 'c = measure q;'), { method: 'mps', shots: 10, seed: 1, maxBond: 2 });
  assert.ok(r.truncationError! > 1e-6);
  assert.ok(r.maxBondReached! <= 2);
});

test('noisy metrics: fidelity below 1, entropies above the ideal', () => {
  const c = parseQasm('OPENQASM 3; include "stdgates.inc"; qubit[3] q; h q[0]; cx q[0], q[1]; cx q[1], q[2];');
  const m = noisyRunMetrics(c, getBackend('lattice_line_5')!, { shots: 500, seed: 1 });
  assert.ok(m.fidelity < 1 && m.fidelity > 0.9, String(m.fidelity));
  close(m.idealShannonEntropy, 1);
  assert.ok(m.shannonEntropy > 1);
  assert.ok(m.vonNeumannEntropy > 0 && m.vonNeumannEntropy < 1);
  assert.equal(Object.values(m.counts).reduce((a, b) => a + b, 0), 500);
});

test('run returns exact outcome probabilities on request', () => {
  const c = parseQasm('OPENQASM 3; qubit[2] q; bit[2] c; ry(pi/3) q[0]; cx q[0], q[1]; c = measure q;');
  for (const method of ['statevector', 'density_matrix'] as const) {
    const r = run(c, { method, shots: 10, seed: 1, probabilities: true });
    close(r.probabilities!['00']!, Math.cos(Math.PI / 6) ** 2);
    close(r.probabilities!['11']!, Math.sin(Math.PI / 6) ** 2);
    assert.equal(r.probabilities!['01'], undefined);
  }
});
