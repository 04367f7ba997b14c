import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getBackend, parseQasm } from '../../engines/quantum/index.ts';
import { estimate, priceOf, REP_DELAY_US, schedule } from './pricing.ts';

const device = getBackend('lattice_line_5')!; // 1q 35 ns, 2q 350 ns, readout 4 µs

describe('runtime pricing', () => {
  test('simulators are free; devices carry their supplier price', () => {
    assert.equal(priceOf(getBackend('statevector_simulator')!), null);
    assert.equal(estimate(getBackend('mps_simulator')!, 'OPENQASM 2.0;\nqreg q[1];\n', 1000).micros, 0);
    assert.deepEqual(priceOf(getBackend('lattice_ion_11')!), { model: 'per_shot', rate_per_shot: 0.03, task_fee: 0.3, currency: 'USD' });
    assert.deepEqual(priceOf(getBackend('lattice_grid_16')!), { model: 'per_shot', rate_per_shot: 0.00035, task_fee: 0.3, currency: 'USD' });
    assert.deepEqual(priceOf(device), { model: 'per_qpu_minute', rate_per_minute: 96, currency: 'USD' });
  });

  test('the schedule runs gates on different qubits in parallel, chains dependent ones, and counts rz as free', () => {
    const parallel = schedule(parseQasm('OPENQASM 2.0;\nqreg q[3];\nsx q[0];\nsx q[1];\nsx q[2];\n'), device);
    assert.equal(parallel.duration_us, 0.035);
    assert.equal(parallel.gates_1q, 3);
    const chained = schedule(parseQasm('OPENQASM 2.0;\nqreg q[2];\nsx q[0];\ncx q[0],q[1];\nsx q[1];\nrz(0.5) q[1];\n'), device);
    assert.equal(chained.duration_us, 0.42);
    assert.equal(chained.gates_2q, 1);
    const measured = schedule(parseQasm('OPENQASM 2.0;\nqreg q[2];\ncreg c[2];\nsx q[0];\nbarrier q[0],q[1];\nmeasure q[1] -> c[1];\n'), device);
    assert.equal(measured.duration_us, 4.035, 'the barrier makes q[1] wait for q[0]');
    assert.equal(measured.measurements, 1);
  });

  test('a per-minute price bills shots times (schedule + repetition delay) of QPU time, rounded up to the micro-dollar', () => {
    const qasm = 'OPENQASM 2.0;\nqreg q[1];\ncreg c[1];\nsx q[0];\nmeasure q[0] -> c[0];\n';
    const e = estimate(device, qasm, 10_000);
    const seconds = (10_000 * (4.035 + REP_DELAY_US)) / 1e6;
    assert.equal(e.basis.qpu_seconds, seconds);
    assert.equal(e.micros, Math.ceil((seconds / 60) * 96 * 1e6));
    assert.equal(e.usd, e.micros / 1e6);
  });

  test('a per-shot price is the task fee plus the shots', () => {
    const e = estimate(getBackend('lattice_ion_11')!, 'OPENQASM 2.0;\nqreg q[1];\n', 250);
    assert.equal(e.micros, 7_800_000);
    assert.equal(e.basis.formula, 'task_fee_usd + shots * rate_per_shot_usd');
  });
});
