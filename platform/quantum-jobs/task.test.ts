import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { executeTask, prepareTask, TaskError, type CircuitTask, type TaskResult } from './task.ts';

const GHZ = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[4];\ncreg c[3];\nh q[0];\ncx q[0],q[1];\ncx q[1],q[2];\ncx q[2],q[3];\nmeasure q[0] -> c[0];\nmeasure q[1] -> c[1];\nmeasure q[2] -> c[2];\n';

/** A task as a submission stores it: validated and optimized once, with what that found. */
function submittedTask(backend: string): CircuitTask {
  const task: CircuitTask = { qasm: GHZ, backend, shots: 500, optimizationLevel: 2, execute: true, seed: 11, qualityMetrics: true };
  const p = prepareTask(task);
  return { ...task, prepared: p.optimization, preparedCounts: { num_qubits: p.num_qubits, num_clbits: p.num_clbits } };
}

const withoutTime = (r: TaskResult) => ({ ...r, execution_time_ms: 0 });

describe('a task run with what its submission prepared', () => {
  it('gives the same result with and without the submitted counts on an ideal backend', () => {
    const task = submittedTask('statevector_simulator');
    const { preparedCounts: _, ...plain } = task;
    const fast = executeTask(task);
    assert.deepEqual(withoutTime(fast), withoutTime(executeTask(plain)));
    assert.equal(fast.num_qubits, 4);
    assert.equal(fast.num_clbits, 3);
    assert.equal(fast.quality?.method, 'ideal_simulator');
  });

  it('does not parse the submitted text again on an ideal backend, and does on a noisy one', () => {
    // A text that no longer parses shows which runs read it: the ideal one runs from the prepared circuit.
    const ideal = { ...submittedTask('statevector_simulator'), qasm: 'not OpenQASM' };
    assert.equal(Object.values(executeTask(ideal).counts).reduce((a, b) => a + b, 0), 500);
    const noisy = { ...submittedTask('statevector_simulator'), noise: 'lattice_line_5', qasm: 'not OpenQASM' };
    assert.throws(() => executeTask(noisy), (err: unknown) => err instanceof TaskError && err.code === 'INVALID_CIRCUIT');
    // A task without the counts (stored before they were kept) still reads them from the text.
    const { preparedCounts: _, ...older } = ideal;
    assert.throws(() => executeTask(older), (err: unknown) => err instanceof TaskError && err.code === 'INVALID_CIRCUIT');
  });

  it('keeps the noisy quality figures, computed from the submitted circuit', () => {
    const task = { ...submittedTask('statevector_simulator'), noise: 'lattice_line_5' };
    const { preparedCounts: _, ...plain } = task;
    assert.deepEqual(withoutTime(executeTask(task)), withoutTime(executeTask(plain)));
    assert.notEqual(executeTask(task).quality?.method, 'ideal_simulator');
  });
});
