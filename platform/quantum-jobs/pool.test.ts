import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkerPool } from './pool.ts';
import { postedResult, receivedResult } from './posted-result.ts';
import { executeTask, prepareTask, type CircuitTask, type TaskResult } from './task.ts';

/** A layered circuit on `n` qubits (more than a task run on the calling thread takes: inline.ts). */
function layered(n: number, angle: number): string {
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', `qreg q[${n}];`, `creg c[${n}];`];
  for (let d = 0; d < 4; d++) {
    for (let i = 0; i < n; i++) lines.push(`u3(${(angle * (i + 1) * (d + 1)).toFixed(4)},0.3,-0.2) q[${i}];`);
    for (let i = d % 2; i + 1 < n; i += 2) lines.push(`cx q[${i}],q[${i + 1}];`);
  }
  lines.push('measure q -> c;');
  return lines.join('\n');
}

const task = (qasm: string): CircuitTask => ({ qasm, backend: 'statevector_simulator', shots: 2000, optimizationLevel: 2, execute: true, seed: 11, qualityMetrics: true });

/** A task as a job carries it: with what its submission prepared. */
function submitted(qasm: string): CircuitTask {
  const t = task(qasm);
  const p = prepareTask(t);
  return { ...t, prepared: p.optimization, preparedCounts: { num_qubits: p.num_qubits, num_clbits: p.num_clbits } };
}

/** The result as JSON with the run's own time left out: the bytes a job stores. */
const bytes = (r: TaskResult): string => JSON.stringify({ ...r, execution_time_ms: 0 });

describe('the job worker pool', () => {
  it('runs a job on the worker that prepared it with the result the task gives in-process', async () => {
    const pool = new WorkerPool(2);
    try {
      await pool.warm();
      const job = submitted(layered(12, 0.37));
      // Prepared on a worker (which parses its optimized text ahead), then run: the same bytes as in-process.
      const prepared = (await pool.run('prepare', task(job.qasm)).done) as ReturnType<typeof prepareTask>;
      assert.deepEqual(prepared.optimization, job.prepared);
      const expected = bytes(executeTask(job));
      assert.equal(bytes(await pool.run('execute', job).done), expected);
      // Run again: the circuit parsed ahead was taken by the first run; this one parses its own.
      assert.equal(bytes(await pool.run('execute', job).done), expected);
    } finally {
      await pool.close();
    }
  });

  it('runs the circuit of the task it is given, not the one its worker prepared last', async () => {
    const pool = new WorkerPool(1);
    try {
      await pool.warm();
      const a = submitted(layered(12, 0.37));
      const b = submitted(layered(12, 1.91));
      assert.notEqual(a.prepared!.optimized_circuit, b.prepared!.optimized_circuit);
      await pool.run('prepare', task(a.qasm)).done;
      const ran = await pool.run('execute', b).done;
      assert.equal(bytes(ran), bytes(executeTask(b)));
      assert.notEqual(bytes(ran), bytes(executeTask(a)));
      // A task prepared to be optimized only is not parsed ahead, and a run after it parses its own.
      await pool.run('prepare', { ...task(a.qasm), execute: false }).done;
      assert.equal(bytes(await pool.run('execute', a).done), bytes(executeTask(a)));
    } finally {
      await pool.close();
    }
  });

  it('posts a result with many counts as arrays and receives the same object, keys in the same order', () => {
    const counts: Record<string, number> = {};
    // Bitstrings with a leading zero are plain keys; the others read as array indices, which objects order first.
    for (let i = 0; i < 1500; i++) counts[((i * 7919) % 4096).toString(2).padStart(12, '0')] = (i % 13) + 1;
    counts['01 10'] = 3;
    const result: TaskResult = { num_qubits: 12, num_clbits: 12, executed_qubits: 12, method: 'statevector', shots: 9, seed: 4, counts, execution_time_ms: 1.5, quality: { success_probability: 1, fidelity_estimate: 1, method: 'ideal_simulator', total_variation_distance: 0 } };
    const posted = postedResult(result);
    assert.deepEqual(posted.result.counts, {});
    assert.deepEqual(result.counts, counts, 'the original is left as it was');
    const received = receivedResult(structuredClone(posted));
    assert.equal(JSON.stringify(received), JSON.stringify(result));
    assert.deepEqual(Object.keys(received), Object.keys(result));
  });
});
