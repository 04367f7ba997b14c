import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getBackend, listBackends } from './backends.ts';
import { DEFAULT_BASIS } from './optimizer/index.ts';
import { listPrice, perShotMicros, qpuMinuteMicros, schedule } from './pricing.ts';
import { parseQasm } from './qasm/index.ts';

const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';

describe('the catalog price list', () => {
  test('every backend has one list price: simulators free, each device priced by its supplier model', () => {
    for (const b of listBackends()) {
      if (b.type === 'simulator') assert.equal(b.price.model, 'free', b.id);
      else assert.notEqual(b.price.model, 'free', b.id);
    }
    assert.deepEqual(getBackend('lattice_line_5')!.price, { model: 'per_qpu_minute', rate_per_minute: 96, rep_delay_us: 250, currency: 'USD' });
    assert.deepEqual(getBackend('lattice_ion_11')!.price, { model: 'per_shot', rate_per_shot: 0.03, task_fee: 0.3, currency: 'USD' });
    assert.deepEqual(getBackend('lattice_grid_16')!.price, { model: 'per_shot', rate_per_shot: 0.00035, task_fee: 0.3, currency: 'USD' });
  });

  test('every backend lists the gates it executes; a simulator lists the optimizer\'s default target set', () => {
    for (const b of listBackends()) assert.ok(b.basis_gates.length > 0, b.id);
    for (const id of ['statevector_simulator', 'density_matrix_simulator', 'mps_simulator']) assert.deepEqual(getBackend(id)!.basis_gates, DEFAULT_BASIS);
  });

  test('a gate on k >= 3 qubits takes its 6 (k - 2) two-qubit gates in the schedule', () => {
    const line = getBackend('lattice_line_5')!;
    const s = schedule(parseQasm('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\nccx q[0],q[1],q[2];\nrz(0.2) q[0];\n'), line);
    assert.equal(s.gates_2q, 6);
    assert.equal(s.gates_1q, 0, 'rz is a frame change');
    assert.equal(s.duration_us, 2.1);
  });

  test('the list price is the same whether given text or a parsed circuit, and rounds up to the micro-dollar', () => {
    const line = getBackend('lattice_line_5')!;
    assert.deepEqual(listPrice(line, BELL, 200), listPrice(line, parseQasm(BELL), 200));
    assert.equal(listPrice(line, BELL, 200).micros, qpuMinuteMicros(200, 4.385, 250, 96));
    assert.equal(listPrice(line, BELL, 200).micros, 81_404);
    assert.equal(perShotMicros(3, 0.00035, 0.3), 301_050);
    assert.equal(listPrice(getBackend('mps_simulator')!, BELL, 1000).micros, 0);
  });
});
