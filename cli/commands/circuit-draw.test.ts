import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Command } from 'commander';
import { register } from './circuit.ts';

/** Runs `lattice circuit draw ...args` in-process and returns what it printed. */
async function draw(args: string[]): Promise<string> {
  const program = new Command('lattice').exitOverride();
  register(program);
  let out = '';
  const w = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string | Uint8Array) => (typeof s === 'string' ? ((out += s), true) : w(s))) as typeof process.stdout.write;
  try {
    await program.parseAsync(['node', 'lattice', 'circuit', 'draw', ...args]);
  } finally {
    process.stdout.write = w;
  }
  return out;
}

test('circuit draw prints a text diagram, and --svg writes the picture', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-draw-'));
  const file = join(dir, 'ghz.qasm');
  writeFileSync(file, 'OPENQASM 3; include "stdgates.inc"; qubit[3] q; bit[3] c; h q[0]; cx q[0], q[1]; cx q[1], q[2]; c = measure q;');
  try {
    const text = await draw([file]);
    assert.match(text, /^q\[0\]: ─+\[H\]─+■/);
    assert.equal((text.match(/⊕/g) ?? []).length, 2);
    assert.equal((text.match(/\[M\]/g) ?? []).length, 3);
    const out = join(dir, 'ghz.svg');
    assert.equal(await draw([file, '--svg', out]), `wrote ${out}\n`);
    const svg = readFileSync(out, 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]* data-gates="3"/);
    assert.equal((svg.match(/<g class="op gate"/g) ?? []).length, 3);
    assert.equal((await draw([file, '--svg', '-'])).trim(), svg.trim());
    await assert.rejects(draw([join(dir, 'missing.qasm')]), /cannot read .*missing\.qasm: ENOENT/);
    await assert.rejects(draw([file, '--svg', join(dir, 'no', 'such', 'dir.svg')]), /cannot write .*: ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
