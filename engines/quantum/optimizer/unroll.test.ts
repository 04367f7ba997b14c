import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlledGateMatrix, gateInfo, gateMatrix, standardGateNames } from '../gates.ts';
import type { Circuit } from '../circuit.ts';
import { phaseBetween } from './complex.ts';
import { run } from './sim.ts';
import { unroll } from './unroll.ts';

/** The unitary (row-major interleaved) of a circuit's unrolled form, column by column. */
function unitaryOf(c: Circuit): Float64Array {
  const n = c.numQubits;
  const d = 1 << n;
  const u = new Float64Array(2 * d * d);
  const ir = unroll(c);
  for (let col = 0; col < d; col++) {
    const s = new Float64Array(2 * d);
    s[2 * col] = 1;
    const out = run(ir, s);
    for (let row = 0; row < d; row++) {
      u[2 * (row * d + col)] = out[2 * row];
      u[2 * (row * d + col) + 1] = out[2 * row + 1];
    }
  }
  return u;
}

const single = (name: string, k: number, params: number[], controls = 0): Circuit => ({
  numQubits: k + controls,
  numClbits: 0,
  qregs: [],
  cregs: [],
  ops: [{ kind: 'gate', name, qubits: [...Array(k + controls).keys()], params, ...(controls ? { controls } : {}) }],
  globalPhase: 0,
});

test('every gate of the engine table lowers to exactly its matrix, global phase included', () => {
  const names = standardGateNames();
  assert.ok(names.length > 30);
  for (const name of names) {
    const info = gateInfo(name);
    assert.ok(info);
    if (info.numQubits > 5) continue;
    for (const seed of [0.37, 1.91]) {
      const params = Array.from({ length: info.numParams }, (_, i) => seed * (i + 1) - 1.3);
      const mine = unitaryOf(single(name, info.numQubits, params));
      const ref = gateMatrix(name, params);
      const ph = phaseBetween(mine, ref, 1e-9);
      assert.ok(ph !== null && Math.abs(ph) < 1e-9, `${name}(${params}) differs from the gate table (phase ${ph})`);
    }
  }
});

test('ctrl @ on table gates lowers to the exact controlled matrix', () => {
  for (const name of ['x', 'h', 'u3', 'rz', 'p', 'sx', 'cx', 'swap', 'cp', 'rzz', 'ccx', 'cu']) {
    const info = gateInfo(name);
    assert.ok(info);
    for (const controls of [1, 2]) {
      if (info.numQubits + controls > 5) continue;
      const params = Array.from({ length: info.numParams }, (_, i) => 0.7 * (i + 1) - 0.2);
      const mine = unitaryOf(single(name, info.numQubits, params, controls));
      const ref = controlledGateMatrix(name, params, controls);
      const ph = phaseBetween(mine, ref, 1e-9);
      assert.ok(ph !== null && Math.abs(ph) < 1e-9, `ctrl(${controls}) @ ${name} differs (phase ${ph})`);
    }
  }
});

test('a gate the optimizer does not know is refused with its name', () => {
  assert.throws(() => unroll(single('mystery', 3, [])), /mystery/);
});
