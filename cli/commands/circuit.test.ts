import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { register } from './circuit.ts';

const BELL = fileURLToPath(new URL('../../fixtures/qasmbench/small__bell_n4.qasm', import.meta.url));

/** Runs `lattice circuit run ...args` in-process and returns what it printed. */
async function cli(args: string[]): Promise<string> {
  const program = new Command('lattice').exitOverride();
  register(program);
  let out = '';
  const w = process.stdout.write.bind(process.stdout);
  // The test runner reports on this stdout in binary frames: pass those through, keep our text.
  process.stdout.write = ((s: string | Uint8Array) => (typeof s === 'string' ? ((out += s), true) : w(s))) as typeof process.stdout.write;
  try {
    await program.parseAsync(['node', 'lattice', 'circuit', 'run', ...args]);
  } finally {
    process.stdout.write = w;
  }
  return out;
}

test('circuit run --json prints counts, method, qubit count and time for a fixture', async () => {
  const r = JSON.parse(await cli([BELL, '--shots', '300', '--seed', '5', '--json'])) as Record<string, unknown>;
  assert.equal(r.num_qubits, 4);
  assert.equal(r.method, 'statevector');
  assert.equal(Object.values(r.counts as Record<string, number>).reduce((a, b) => a + b, 0), 300);
  assert.equal(typeof r.execution_time_ms, 'number');
  const again = JSON.parse(await cli([BELL, '--shots', '300', '--seed', '5', '--json'])) as Record<string, unknown>;
  assert.deepEqual(again.counts, r.counts);
});

test('circuit run prints memory and the statevector when asked, for every method', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-circuit-'));
  const file = join(dir, 'bell.qasm');
  writeFileSync(file, 'OPENQASM 3; include "stdgates.inc"; qubit[2] q; bit[2] c; h q[0]; cx q[0], q[1]; c = measure q;');
  try {
    const r = JSON.parse(await cli([file, '--shots', '8', '--seed', '1', '--memory', '--statevector', '--json'])) as { memory: string[]; statevector: number[] };
    assert.equal(r.memory.length, 8);
    assert.ok(r.memory.every((m) => m === '00' || m === '11'));
    assert.equal(r.statevector.length, 8);
    assert.ok(Math.abs(r.statevector[6]! - Math.SQRT1_2) < 1e-12);
    for (const method of ['density_matrix', 'mps']) {
      const m = JSON.parse(await cli([file, '--shots', '50', '--seed', '1', '--method', method, '--json'])) as { method: string; counts: Record<string, number> };
      assert.equal(m.method, method);
      assert.deepEqual(Object.keys(m.counts).sort(), ['00', '11']);
    }
    const noisy = JSON.parse(await cli([file, '--shots', '4000', '--seed', '1', '--method', 'density_matrix', '--noise', 'lattice_line_5', '--json'])) as { counts: Record<string, number> };
    assert.ok((noisy.counts['01'] ?? 0) + (noisy.counts['10'] ?? 0) > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('circuit run rejects bad input with clear errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-circuit-'));
  const bad = join(dir, 'bad.qasm');
  const big = join(dir, 'big.qasm');
  writeFileSync(bad, 'OPENQASM 2.0;\nqreg q[1];\nfoo q[0];\n');
  writeFileSync(big, 'OPENQASM 3; qubit[40] q; h q[0];');
  try {
    await assert.rejects(cli([bad]), /line 3, column 1: unknown gate 'foo'/);
    await assert.rejects(cli([BELL, '--shots', '-1']), /--shots must be zero or more/);
    await assert.rejects(cli([big]), /40 qubits is too many for the statevector method/);
    await assert.rejects(cli([big, '--method', 'density_matrix']), /too many for the density_matrix method/);
    await assert.rejects(cli([BELL, '--method', 'magic']), /--method must be one of/);
    await assert.rejects(cli([BELL, '--noise', 'nope']), /unknown backend 'nope'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
