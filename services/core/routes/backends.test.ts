/** Backends, their calibration from the engine's catalog, and /api/v2/status with measured queue depths and response times. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBackend, listBackends } from '../../../engines/quantum/index.ts';
import { call } from '../../../platform/testing/harness.ts';
import { startCore, BELL, type CoreTest } from '../testing.ts';

let c: CoreTest;
let key: string;
before(async () => {
  c = await startCore();
  key = await c.key('enterprise');
});
after(() => c.svc.close());

/** A 10-qubit circuit of `layers` layers: a second or more of exact noisy simulation on a device. */
function slowCircuit(layers: number): string {
  let s = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[10];\ncreg c[10];\n';
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < 10; i++) s += `ry(${(0.2 + l * 0.31 + i * 0.07).toFixed(3)}) q[${i}];\n`;
    for (let i = l % 2; i + 1 < 10; i += 2) s += `cx q[${i}],q[${i + 1}];\n`;
  }
  return `${s}measure q -> c;\n`;
}

describe('backends', () => {
  test('the list is the engine catalog: simulators and emulated devices with type, qubits, status and queue depth', async () => {
    const res = await c.as(key, '/api/v2/backends');
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    const list = res.body.data.backends as Array<Record<string, unknown>>;
    assert.deepEqual(list.map((b) => b.id), listBackends().map((b) => b.id));
    for (const b of list) {
      assert.deepEqual(Object.keys(b).sort(), ['id', 'name', 'qubits', 'queue_depth', 'status', 'type']);
      assert.equal(b.status, 'online');
      assert.equal(b.qubits, getBackend(b.id as string)!.qubits);
    }
    assert.equal(list.find((b) => b.id === 'lattice_falcon_27')!.type, 'hardware');
    assert.equal(list.find((b) => b.id === 'statevector_simulator')!.type, 'simulator');
  });

  test('a device detail has its native gates, coupling map and average fidelity from its calibration', async () => {
    const res = await c.as(key, '/api/v2/backends/lattice_line_5');
    assert.equal(res.status, 200);
    const d = res.body.data;
    assert.deepEqual(d.native_gates, ['cx', 'rz', 'sx', 'x']);
    assert.equal(d.connectivity.all_to_all, false);
    assert.deepEqual(d.connectivity.coupling_map, getBackend('lattice_line_5')!.coupling_map);
    const cal = getBackend('lattice_line_5')!.calibration!;
    const expected = ((1 - cal.sq_error) + (1 - cal.cx_error) + (1 - cal.readout_error)) / 3;
    assert.ok(Math.abs(d.average_fidelity - expected) < 1e-6);
    assert.equal(d.max_shots, 100_000);
    const ion = (await c.as(key, '/api/v2/backends/lattice_ion_11')).body.data;
    assert.equal(ion.connectivity.all_to_all, true);
    assert.equal(ion.connectivity.coupling_map, null);
    const sim = (await c.as(key, '/api/v2/backends/statevector_simulator')).body.data;
    assert.equal(sim.average_fidelity, 1);
    assert.ok(sim.native_gates.includes('cx') && sim.native_gates.includes('ccx'));
  });

  test('calibration is 1 minus the calibrated errors, at the calibration time; ideal simulators are exact', async () => {
    const res = await c.as(key, '/api/v2/backends/lattice_grid_16/calibration');
    assert.equal(res.status, 200);
    const cal = getBackend('lattice_grid_16')!.calibration!;
    const d = res.body.data;
    assert.equal(d.backend_id, 'lattice_grid_16');
    assert.equal(d.timestamp, new Date(cal.last_updated).toISOString());
    assert.ok(Math.abs(d.single_qubit_fidelity - (1 - cal.sq_error)) < 1e-9);
    assert.ok(Math.abs(d.two_qubit_fidelity - (1 - cal.cx_error)) < 1e-9);
    assert.ok(Math.abs(d.readout_fidelity - (1 - cal.readout_error)) < 1e-9);
    assert.equal(d.t1_us, cal.t1_us);
    for (const b of listBackends()) {
      const r = await c.as(key, `/api/v2/backends/${b.id}/calibration`);
      assert.equal(r.status, 200, b.id);
      if (!b.calibration) assert.deepEqual([r.body.data.single_qubit_fidelity, r.body.data.two_qubit_fidelity, r.body.data.readout_fidelity], [1, 1, 1]);
    }
  });

  test('an unknown backend is 404 NOT_FOUND on detail and calibration', async () => {
    for (const path of ['/api/v2/backends/nope', '/api/v2/backends/nope/calibration']) {
      const res = await c.as(key, path);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
  });
});

describe('status', () => {
  test('queue depths are the jobs waiting or running on each backend, counted from the job table', async () => {
    const idle = (await call(`${c.svc.url}/api/v2/status`)).body.data;
    assert.equal(idle.api, 'operational');
    assert.deepEqual(Object.keys(idle.backends).sort(), listBackends().map((b) => b.id).sort());
    assert.ok(Object.values(idle.backends).every((s) => s === 'online'));
    assert.equal(idle.queue_depth, 0);

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: slowCircuit(30), backend: 'lattice_grid_16', shots: 100, options: { optimization_level: 0 } } });
      ids.push(r.body.data.job_id);
    }
    const busy = (await call(`${c.svc.url}/api/v2/status`)).body.data;
    // Three submitted, one at a time on the device: at least two still wait or run a moment later.
    assert.ok(busy.queue_depths.lattice_grid_16 >= 2 && busy.queue_depths.lattice_grid_16 <= 3, JSON.stringify(busy));
    assert.equal(busy.queue_depth, Object.values(busy.queue_depths as Record<string, number>).reduce((a, b) => a + b, 0));
    const listed = (await c.as(key, '/api/v2/backends')).body.data.backends.find((b: { id: string }) => b.id === 'lattice_grid_16');
    assert.ok(listed.queue_depth >= 1);
    for (const id of ids) await c.as(key, `/api/v2/jobs/${id}`, { method: 'DELETE' });
    assert.equal((await call(`${c.svc.url}/api/v2/status`)).body.data.queue_depths.lattice_grid_16, 0);
  });

  test('avg_response_time_ms is measured from the answered requests', async () => {
    for (let i = 0; i < 5; i++) await c.as(key, '/api/v2/backends');
    const s = (await call(`${c.svc.url}/api/v2/status`)).body.data;
    assert.equal(typeof s.avg_response_time_ms, 'number');
    assert.ok(s.avg_response_time_ms > 0 && s.avg_response_time_ms < 5000);
    // Answered requests move the mean. It is a mean of up to 1,000 requests rounded to 0.01 ms, so one
    // request close to it may leave it unchanged: a job submission and then a few more reads must not.
    const before = s.avg_response_time_ms;
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 10 } });
    assert.equal(res.status, 202);
    let after = (await call(`${c.svc.url}/api/v2/status`)).body.data.avg_response_time_ms;
    for (let i = 0; i < 20 && after === before; i++) {
      await c.as(key, `/api/v2/jobs/${res.body.data.job_id}`);
      after = (await call(`${c.svc.url}/api/v2/status`)).body.data.avg_response_time_ms;
    }
    assert.notEqual(after, before);
    await c.settle(key, res.body.data.job_id);
  });
});
