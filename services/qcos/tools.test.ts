import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../../platform/testing/harness.ts';
import { randomLayeredCircuit } from '../../engines/quantum/circuits.ts';
import { nativeStatevector } from '../../engines/quantum/native/index.ts';
import { toQasm } from '../../engines/quantum/qasm/emit.ts';
import { BELL, client, ghz, startQcos } from './testing.ts';

let svc: TestService;
let api: ReturnType<typeof client>;

before(async () => {
  svc = await startQcos();
  api = client(svc, (await svc.newKey({ plan: 'pro' })).key);
});
after(() => svc.close());

const circuit = (qasm = BELL) => ({ qasm, format: /OPENQASM 3/.test(qasm) ? 'qasm3' : 'qasm2' });

describe('POST /v2/simulate', () => {
  it('returns the Bell statevector interleaved re/im with qubit 0 least significant', async () => {
    const r = await api.post('/v2/simulate', { circuit: circuit(), shots: 100, seed_simulator: 9 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.method, 'statevector');
    const s = Math.SQRT1_2;
    const sv: number[] = r.body.statevector;
    assert.equal(sv.length, 8);
    [s, 0, 0, 0, 0, 0, s, 0].forEach((v, i) => assert.ok(Math.abs(sv[i]! - v) < 1e-12, `amplitude ${i}: ${sv[i]}`));
    assert.equal(r.body.counts['00'] + r.body.counts['11'], 100);
    assert.ok(r.body.simulation_minutes > 0);
    assert.ok(r.body.simulation_id.startsWith('job_'));
  });

  it('puts qubit 0 in the least significant place of the statevector', async () => {
    const r = await api.post('/v2/simulate', { circuit: circuit('OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[3] q;\nx q[0];\n'), shots: 0 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.statevector[2], 1, 'amplitude of |001> (index 1) is 1');
  });

  it('samples a circuit with a mid-circuit measurement and returns no statevector for it', async () => {
    const qasm = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\nmeasure q[0] -> c[0];\ncx q[0],q[1];\nmeasure q[1] -> c[1];\n';
    const r = await api.post('/v2/simulate', { circuit: circuit(qasm), shots: 200, seed_simulator: 7 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.statevector, null);
    assert.deepEqual(Object.keys(r.body.counts).sort(), ['00', '11']);
  });

  it('runs all three methods, with a device noise model on the density matrix', async () => {
    for (const method of ['statevector', 'density_matrix', 'mps']) {
      const r = await api.post('/v2/simulate', { circuit: circuit(ghz(4)), shots: 200, method, seed_simulator: 1 });
      assert.equal(r.status, 200, `${method}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.method, method);
      assert.deepEqual(Object.keys(r.body.counts).sort(), ['0000', '1111']);
      if (method !== 'statevector') assert.equal(r.body.statevector, null);
    }
    const noisy = await api.post('/v2/simulate', { circuit: circuit(ghz(4)), shots: 2000, method: 'density_matrix', noise_model: 'lattice_grid_16', seed_simulator: 1 });
    assert.equal(noisy.status, 200, JSON.stringify(noisy.body));
    assert.equal(noisy.body.noise_model, 'lattice_grid_16');
    assert.ok(Object.keys(noisy.body.counts).length > 2, 'noise spreads the outcomes');
    assert.equal(noisy.body.statevector, null);
  });

  it('runs the statevector in single precision when asked, within 1e-6 of double, and refuses it for other methods', async () => {
    const qasm = toQasm(randomLayeredCircuit(12, 10, 5), 2);
    const double = await api.post('/v2/simulate', { circuit: circuit(qasm), shots: 0 });
    const single = await api.post('/v2/simulate', { circuit: circuit(qasm), shots: 0, precision: 'single' });
    assert.equal(double.status, 200, JSON.stringify(double.body));
    assert.equal(single.status, 200, JSON.stringify(single.body));
    assert.equal(double.body.precision, 'double');
    assert.equal(single.body.precision, 'single');
    const a: number[] = double.body.statevector;
    const b: number[] = single.body.statevector;
    assert.equal(b.length, a.length);
    const diff = Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));
    assert.ok(diff < 1e-6, `single vs double: ${diff}`);
    // With the native kernels the rounding of complex64 shows; without them single runs in double.
    if (nativeStatevector()) assert.ok(diff > 1e-12, `single and double agree to ${diff}: was single precision used?`);
    const refused = await api.post('/v2/simulate', { circuit: circuit(), method: 'mps', precision: 'single' });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'INVALID_REQUEST');
    const bad = await api.post('/v2/simulate', { circuit: circuit(), precision: 'half' });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
  });

  it('refuses a noise model that is not a device, and noise on mps', async () => {
    const a = await api.post('/v2/simulate', { circuit: circuit(), noise_model: 'statevector_simulator' });
    assert.equal(a.status, 400);
    assert.equal(a.body.error.code, 'INVALID_BACKEND');
    const b = await api.post('/v2/simulate', { circuit: circuit(), noise_model: 'nowhere_9' });
    assert.equal(b.body.error.code, 'INVALID_BACKEND');
    const c = await api.post('/v2/simulate', { circuit: circuit(), method: 'mps', noise_model: 'lattice_line_5' });
    assert.equal(c.status, 400);
  });
});

describe('POST /v2/optimize', () => {
  const wide = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[4];\ncreg c[4];\nh q[0];\ncx q[0],q[3];\ncx q[1],q[2];\ncx q[0],q[2];\nh q[1];\nh q[1];\nmeasure q -> c;\n';

  it('optimizes for the backend basis and coupling map and reports the mapping and one credit', async () => {
    const r = await api.post('/v2/optimize', { circuit: circuit(wide), target_backend: 'lattice_line_5' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.credits_used, 1);
    assert.ok(r.body.metrics.optimized_gates > 0);
    assert.match(r.body.optimized_circuit, /OPENQASM 2\.0/);
    const applied = [...r.body.optimized_circuit.matchAll(/^([a-z]+)(\([^)]*\))? q\[/gm)].map((g) => g[1]).filter((g) => g !== 'qreg' && g !== 'creg');
    assert.ok(applied.length > 0);
    for (const g of applied) assert.ok(['cx', 'rz', 'sx', 'x', 'measure', 'barrier'].includes(g), `gate ${g} outside the basis`);
    assert.deepEqual(Object.keys(r.body.qubit_mapping).sort(), ['0', '1', '2', '3']);
    const usage = await api.get('/v2/account/usage');
    assert.equal(usage.body.optimization_credits.used, 1);
  });

  it('keeps every logical qubit in place with preserve_layout', async () => {
    const r = await api.post('/v2/optimize', { circuit: circuit(wide), target_backend: 'lattice_line_5', preserve_layout: true, optimization_level: 3 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.qubit_mapping, { 0: 0, 1: 1, 2: 2, 3: 3 });
    assert.deepEqual(r.body.initial_layout, { 0: 0, 1: 1, 2: 2, 3: 3 });
  });

  it('removes the cancelling gates at level 2 and keeps them at level 0', async () => {
    const l0 = await api.post('/v2/optimize', { circuit: circuit(wide), target_backend: 'statevector_simulator', optimization_level: 0 });
    const l2 = await api.post('/v2/optimize', { circuit: circuit(wide), target_backend: 'statevector_simulator', optimization_level: 2 });
    assert.ok(l2.body.metrics.optimized_gates < l0.body.metrics.optimized_gates, `${l2.body.metrics.optimized_gates} < ${l0.body.metrics.optimized_gates}`);
    assert.ok(l2.body.metrics.gate_reduction_percent > 0);
  });

  it('refuses an unknown target backend', async () => {
    const r = await api.post('/v2/optimize', { circuit: circuit(), target_backend: 'qpu_404' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'INVALID_BACKEND');
  });
});

describe('GET /v2/backends', () => {
  it('lists the catalog with prices and queue figures, and details a device', async () => {
    const r = await api.get('/v2/backends');
    assert.equal(r.status, 200);
    const ids = r.body.backends.map((b: { id: string }) => b.id);
    for (const id of ['statevector_simulator', 'density_matrix_simulator', 'mps_simulator', 'lattice_falcon_27']) assert.ok(ids.includes(id), id);
    const falcon = r.body.backends.find((b: { id: string }) => b.id === 'lattice_falcon_27');
    assert.equal(falcon.qubits, 27);
    assert.equal(typeof falcon.queue_length, 'number');
    assert.ok(falcon.pricing.currency);
    const d = await api.get('/v2/backends/lattice_falcon_27');
    assert.equal(d.status, 200);
    assert.deepEqual(d.body.basis_gates, ['cx', 'rz', 'sx', 'x', 'id']);
    assert.equal(d.body.calibration.cx_error, 0.009);
    assert.equal(d.body.connectivity.type, 'coupling_map');
    assert.ok(d.body.max_shots > 0 && d.body.max_circuits > 0);
    assert.equal((await api.get('/v2/backends/nope')).status, 404);
  });

  it('lists for every backend the gates it executes, the set the optimizer writes for it', async () => {
    for (const id of ['statevector_simulator', 'density_matrix_simulator', 'mps_simulator', 'lattice_falcon_27', 'lattice_grid_16', 'lattice_ion_11', 'lattice_line_5']) {
      const d = (await api.get(`/v2/backends/${id}`)).body;
      assert.ok(d.basis_gates.length > 0, `${id} lists its gates`);
      const wide = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\ncreg c[3];\nh q[0];\nccx q[0],q[1],q[2];\nswap q[0],q[2];\nry(0.3) q[1];\nmeasure q -> c;\n';
      const o = await api.post('/v2/optimize', { circuit: circuit(wide), target_backend: id, optimization_level: 1 });
      assert.equal(o.status, 200, JSON.stringify(o.body));
      const used = new Set([...o.body.optimized_circuit.matchAll(/^([a-z][a-z0-9_]*)(\([^)]*\))? q\[/gm)].map((g: RegExpMatchArray) => g[1]));
      for (const decl of ['qreg', 'creg', 'measure']) used.delete(decl);
      assert.ok(used.size > 0, o.body.optimized_circuit);
      for (const g of used) assert.ok(d.basis_gates.includes(g), `${id}: the optimizer wrote ${g}, not among ${d.basis_gates}`);
    }
    assert.deepEqual((await api.get('/v2/backends/statevector_simulator')).body.basis_gates, ['u3', 'cx']);
  });

  it('measures queue_length and average_wait_minutes from the device queue', async () => {
    const key = (await svc.newKey({ plan: 'hybrid' })).key;
    const other = client(svc, key);
    const jobs = [];
    for (let i = 0; i < 3; i++) {
      const r = await other.post('/v2/circuits', { circuit: circuit(ghz(11)), backend: 'lattice_ion_11', shots: 3000, optimization_level: 0 });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      jobs.push(r.body);
    }
    const during = (await other.get('/v2/backends')).body.backends.find((b: { id: string }) => b.id === 'lattice_ion_11');
    assert.ok(during.queue_length >= 1, `queue_length ${during.queue_length}`);
    const third = await other.get(`/v2/jobs/${jobs[2].job_id}`);
    assert.ok(third.body.queue_position >= 1);
    for (const j of jobs) assert.equal((await other.get(`/v2/jobs/${j.job_id}?wait=60`)).body.status, 'completed');
    const started = await Promise.all(jobs.map(async (j) => (await other.get(`/v2/jobs/${j.job_id}`)).body));
    // FIFO, one at a time: each job starts after the one before it ended.
    assert.ok(started[1].started_at >= started[0].completed_at && started[2].started_at >= started[1].completed_at, JSON.stringify(started));
    const after = (await other.get('/v2/backends/lattice_ion_11')).body;
    assert.equal(after.queue_length, 0);
    assert.ok(after.average_wait_minutes > 0);
  });
});
