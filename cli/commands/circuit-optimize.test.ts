import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { parseQasm } from '../../engines/quantum/qasm/index.ts';
import { equivalenceError } from '../../engines/quantum/optimizer/equivalence.ts';
import { register } from './circuit-optimize.ts';

const TOF3 = fileURLToPath(new URL('../../fixtures/nam/tof_3.qasm', import.meta.url));

/** Runs `lattice circuit optimize ...args` in-process and returns what it printed. */
async function cli(args: string[]): Promise<{ out: string; err: string }> {
  const program = new Command('lattice').exitOverride();
  register(program);
  let out = '';
  let err = '';
  const w1 = process.stdout.write.bind(process.stdout);
  const w2 = process.stderr.write.bind(process.stderr);
  // The test runner reports on this stdout in binary frames: pass those through, keep our text.
  process.stdout.write = ((s: string | Uint8Array) => (typeof s === 'string' ? ((out += s), true) : w1(s))) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
  try {
    await program.parseAsync(['node', 'lattice', 'circuit', 'optimize', ...args]);
  } finally {
    process.stdout.write = w1;
    process.stderr.write = w2;
  }
  return { out, err };
}

test('optimize --json prints the optimized circuit, the metrics and the qubit mapping', async () => {
  const { out } = await cli([TOF3, '--level', '3', '--basis', 'cx,h,rz,x', '--json']);
  const r = JSON.parse(out) as { optimized_circuit: string; metrics: Record<string, number>; qubit_mapping: Record<string, number> };
  assert.match(r.optimized_circuit, /^OPENQASM 2\.0;/);
  assert.equal(r.metrics.original_gates, 9);
  assert.ok(r.metrics.optimized_gates > 0);
  assert.deepEqual(Object.keys(r.qubit_mapping).length, 5);
  for (const key of ['original_depth', 'optimized_depth', 'depth_reduction_percent', 'gate_reduction_percent']) assert.equal(typeof r.metrics[key], 'number');
  const original = parseQasm(readFileSync(TOF3, 'utf8'));
  // OpenQASM 2 cannot carry a global phase: compare up to it.
  const err = equivalenceError(original, parseQasm(r.optimized_circuit), { ignoreGlobalPhase: true });
  assert.ok(err < 1e-6, `the printed circuit parses back to the same operation (error ${err})`);
});

test('optimize routes onto a catalog backend and prints OpenQASM 3 on request', async () => {
  const { out } = await cli([TOF3, '--backend', 'lattice_line_5', '--format', 'qasm3', '--json']);
  const r = JSON.parse(out) as { optimized_circuit: string; qubit_mapping: Record<string, number>; initial_layout: Record<string, number> };
  assert.match(r.optimized_circuit, /^OPENQASM 3/);
  const c = parseQasm(r.optimized_circuit);
  for (const op of c.ops) {
    if (op.kind === 'gate' && op.qubits.length === 2) assert.equal(Math.abs(op.qubits[0] - op.qubits[1]), 1, 'only neighbours on a line');
    if (op.kind === 'gate') assert.ok(['cx', 'rz', 'sx', 'x'].includes(op.name), op.name);
  }
  const original = parseQasm(readFileSync(TOF3, 'utf8'));
  assert.ok(equivalenceError(original, c, { initialLayout: r.initial_layout, qubitMapping: r.qubit_mapping }) < 1e-6);
});

test('optimize refuses a bad level, a bad coupling map and an unknown backend', async () => {
  await assert.rejects(cli([TOF3, '--level', '5']), /--level/);
  await assert.rejects(cli([TOF3, '--coupling', '[[0,1]']), /--coupling/);
  await assert.rejects(cli([TOF3, '--backend', 'nope']), /unknown backend/);
  await assert.rejects(cli(['/nonexistent.qasm']), /cannot read/);
});
