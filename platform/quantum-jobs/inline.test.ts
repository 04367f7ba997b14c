import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readBackend } from '../../engines/quantum/backends.ts';
import { runsInline } from './inline.ts';
import { TaskCancelled, TaskFailure, WorkerPool } from './pool.ts';
import type { CircuitTask, TaskResult } from './task.ts';

const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
const task = (qasm: string, extra: Partial<CircuitTask> = {}): CircuitTask => ({
  qasm,
  backend: 'statevector_simulator',
  shots: 1000,
  optimizationLevel: 2,
  execute: true,
  seed: 5,
  qualityMetrics: true,
  ...extra,
});

describe('small tasks on the calling thread', () => {
  it('takes a Bell circuit, and anything whose work the text does not bound goes to a worker', () => {
    assert.equal(runsInline('prepare', task(BELL)), true);
    // Plain OpenQASM 2 of other shapes stays inline: parameters, conditions, comments, reset, barrier.
    const plain = 'OPENQASM 2.0;\ninclude "qelib1.inc";\n// a comment; with a semicolon\nqreg q[3];\ncreg c[3];\nu3(pi/2, -0.5, sin(0.1)) q[0];\n' +
      'rz(2*pi/3) q;\nbarrier q[0], q[1];\nmeasure q[0] -> c[0];\nif (c==1) x q[1];\nreset q[2];\nccx q[0],q[1],q[2];\nmeasure q -> c;\n';
    assert.equal(runsInline('prepare', task(plain)), true);
    // 120 broadcasts over 2 qubits and the 6 other statements (the header counts): 252 operations at most.
    assert.equal(runsInline('prepare', task(BELL.replace('h q[0];', 'h q;\n'.repeat(120)))), true);
    assert.equal(runsInline('execute', task(BELL)), true);
    const worker: Array<[string, CircuitTask]> = [
      ['a gate definition (nested expansion)', task(BELL.replace('h q[0];', 'gate g a { h a; }\ng q[0];'))],
      ['an opaque gate', task(BELL.replace('h q[0];', 'opaque o a;\nh q[0];'))],
      ['OpenQASM 3 (loops)', task('OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nfor int i in [0:1000] { h q[0]; }\n')],
      ['11 qubits', task(BELL.replace('qreg q[2];', 'qreg q[2];\nqreg r[9];'))],
      ['a large classical register', task(BELL.replace('creg c[2];', 'creg c[2];\ncreg d[40];'))],
      ['a register the pattern does not read', task(BELL.replace('qreg q[2];', 'qreg /* two */ q[2];'))],
      ['a long text', task(BELL + '\n'.repeat(1024))],
      // OpenQASM 3 that the lenient parser takes under a 2.0 header: each expands a short text without bound.
      ['a for loop without braces', task(BELL.replace('h q[0];', 'for uint i in [0:100000] h q[0];'))],
      ['a pow modifier', task(BELL.replace('h q[0];', 'pow(100000) @ h q[0];'))],
      ['a ctrl modifier', task(BELL.replace('h q[0];', 'ctrl @ x q[0], q[1];'))],
      ['a qubit declaration', task(BELL.replace('h q[0];', 'qubit[20] r;\nh q[0];'))],
      ['a single qubit declared without a size', task(BELL.replace('h q[0];', 'qubit r;\nh q[0];'))],
      ['a bit declaration', task(BELL.replace('h q[0];', 'bit[64] d;\nh q[0];'))],
      ['a name that is no standard gate', task(BELL.replace('h q[0];', 'let a = q;\nh q[0];'))],
      ['text after the last statement', task(BELL + 'h q[0]')],
      ['more than 256 operations as broadcast statements bound them', task(BELL.replace('h q[0];', 'h q;\n'.repeat(130)))],
      ['level 3', task(BELL, { optimizationLevel: 3 })],
      ['more than 10,000 shots', task(BELL, { shots: 10_001 })],
      ['a device backend (routing, noise)', task(BELL, { backend: 'lattice_line_5' })],
      ['the density-matrix simulator', task(BELL, { backend: 'density_matrix_simulator' })],
      ['another method', task(BELL, { method: 'mps' })],
      ['a noise model', task(BELL, { noise: 'lattice_line_5' })],
      ['an unknown backend', task(BELL, { backend: 'no_such_backend' })],
    ];
    for (const [why, t] of worker) assert.equal(runsInline('prepare', t), false, why);
    const prepared = { optimized_circuit: BELL.replace('h q[0];', 'gate g a { h a; }\ng q[0];') } as CircuitTask['prepared'];
    assert.equal(runsInline('execute', task(BELL, { prepared })), false, 'an optimized text that is not small');
  });

  it('gives what a worker gives: the same stages, result and failures', async () => {
    const pool = new WorkerPool(1);
    try {
      await pool.warm();
      const t = task(BELL);
      assert.equal(runsInline('execute', t), true);
      const stages: string[] = [];
      const inline = (await pool.run('execute', t, (s) => stages.push(s)).done) as TaskResult;
      assert.deepEqual(stages, ['validating', 'optimizing', 'running']);
      // A job runs the optimized text its submission prepared: that text stays inline too.
      const prepared = (await pool.run('prepare', t).done) as { optimization: CircuitTask['prepared'] };
      assert.equal(runsInline('execute', { ...t, prepared: prepared.optimization }), true);
      // The same task with a comment past the inline text limit goes to the worker.
      const padded = task(BELL + `// ${'x'.repeat(1100)}\n`);
      assert.equal(runsInline('execute', padded), false);
      const onWorker = (await pool.run('execute', padded).done) as TaskResult;
      assert.deepEqual({ ...inline, execution_time_ms: 0, optimization: undefined }, { ...onWorker, execution_time_ms: 0, optimization: undefined });
      assert.deepEqual(inline.counts, onWorker.counts);
      assert.equal(inline.counts['00']! + inline.counts['11']!, 1000);
      // A failure is the worker's TaskFailure, with its code.
      const bad = task('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nh q[5];\n');
      assert.equal(runsInline('prepare', bad), true);
      await assert.rejects(pool.run('prepare', bad).done, (err) => err instanceof TaskFailure && err.code === 'INVALID_CIRCUIT');
    } finally {
      await pool.close();
    }
  });

  it('cancels an inline task that has not started', async () => {
    const pool = new WorkerPool(1);
    try {
      const { id, done } = pool.run('execute', task(BELL));
      assert.equal(pool.cancel(id), true);
      await assert.rejects(done, (err) => err instanceof TaskCancelled);
      assert.equal(pool.cancel(id), false);
    } finally {
      await pool.close();
    }
  });

  it('reads the catalog without copying it, and nobody can change it through that', () => {
    const b = readBackend('lattice_line_5')!;
    assert.equal(readBackend('lattice_line_5'), b);
    assert.throws(() => {
      (b as { qubits: number }).qubits = 99;
    }, TypeError);
    assert.throws(() => (b.coupling_map as Array<[number, number]>).push([0, 4]), TypeError);
    assert.equal(readBackend('lattice_line_5')!.qubits, 5);
  });
});
