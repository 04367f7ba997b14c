import assert from 'node:assert/strict';
import { test } from 'node:test';
import { densityDistribution, parseQasm, run } from '../index.ts';
import { nativeStatevector } from '../native/index.ts';
import type { NoiseModel } from '../noise.ts';
import { Rng } from '../sampling.ts';
import { meanTrajectoryProbabilities } from './trajectories-native.ts';

const skip = nativeStatevector() ? false : 'the native kernels are not built on this machine';

// Strong damping (γ ≈ 0.14 per two-qubit gate), so that most trajectories jump at least once.
const harsh: NoiseModel = { depol1: 0.01, depol2: 0.03, t1_us: 2, t2_us: 3, gate_time_1q_ns: 50, gate_time_2q_ns: 300, readout_error: 0 };

test('native trajectories average to the density matrix under strong damping, dephasing and depolarizing noise', { skip }, () => {
  const c = parseQasm('OPENQASM 3; include "stdgates.inc"; qubit[3] q; h q[0]; cx q[0], q[1]; x q[2]; rx(0.7) q[1]; cx q[1], q[2]; cx q[2], q[0];');
  const exact = densityDistribution({ ...c, numClbits: 3, cregs: [{ name: 'c', size: 3, offset: 0 }], ops: [...c.ops, ...[0, 1, 2].map((q) => ({ kind: 'measure' as const, qubit: q, clbit: q }))] }, harsh);
  const mean = meanTrajectoryProbabilities(c.ops, 3, harsh, 6000, new Rng(11));
  for (let i = 0; i < 8; i++) assert.ok(Math.abs(mean[i]! - exact[i]!) < 0.02, `outcome ${i}: trajectories ${mean[i]}, density matrix ${exact[i]}`);
  // Without the jumps the populations would stay where the gates put them: the damping must show.
  const noiseless = meanTrajectoryProbabilities(c.ops, 3, { ...harsh, t1_us: Infinity, t2_us: Infinity, depol1: 0, depol2: 0 }, 1, new Rng(1));
  assert.ok(Math.abs(noiseless[4]! - exact[4]!) > 0.05, 'the noise changes the distribution');
});

test('a 10-qubit noisy run samples through the native trajectories and matches the density matrix', { skip }, () => {
  let src = 'OPENQASM 3; include "stdgates.inc"; qubit[10] q; bit[3] c; h q[0];';
  for (let i = 0; i < 9; i++) src += `cx q[${i}], q[${i + 1}]; ry(0.3) q[${i}];`;
  src += 'c[0] = measure q[0]; c[1] = measure q[5]; c[2] = measure q[9];';
  const c = parseQasm(src);
  const noise = { ...harsh, t1_us: 20, t2_us: 25 };
  const exact = densityDistribution(c, noise);
  const r = run(c, { shots: 25600, seed: 5, noise });
  assert.deepEqual(run(c, { shots: 25600, seed: 5, noise }).counts, r.counts, 'same seed, same shots');
  for (let i = 0; i < 8; i++) {
    const got = (r.counts[i.toString(2).padStart(3, '0')] ?? 0) / 25600;
    assert.ok(Math.abs(got - exact[i]!) < 0.05, `outcome ${i}: sampled ${got}, exact ${exact[i]}`);
  }
});
