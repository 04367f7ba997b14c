import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit, GateOp } from '../circuit.ts';
import { optimize } from './index.ts';
import { sparseCheck } from './sparse.ts';

function adderLike(n: number): Circuit {
  const ops: GateOp[] = [];
  for (let i = 0; i + 2 < n; i++) {
    ops.push({ kind: 'gate', name: 'ccx', qubits: [i, i + 1, i + 2], params: [] });
    ops.push({ kind: 'gate', name: 'cx', qubits: [i, i + 1], params: [] });
  }
  return { numQubits: n, numClbits: 0, qregs: [{ name: 'q', size: n, offset: 0 }], cregs: [], ops, globalPhase: 0 };
}

test('the sparse check accepts a correct optimization of a 40-qubit Toffoli circuit and catches a changed one', () => {
  const c = adderLike(40);
  const r = optimize(c, { level: 2, basisGates: ['cx', 'h', 'rz', 'x'] });
  const err = sparseCheck(c, r.circuit, { inputs: 6 });
  assert.ok(err !== null && err < 1e-9, `error ${err}`);
  const broken: Circuit = { ...r.circuit, ops: [...r.circuit.ops, { kind: 'gate', name: 'x', qubits: [39], params: [] }] };
  const bad = sparseCheck(c, broken, { inputs: 6 });
  assert.ok(bad !== null && bad > 0.5);
});

test('the sparse check gives up (null) when the superposition grows past its limit', () => {
  const ops: GateOp[] = Array.from({ length: 20 }, (_, q) => ({ kind: 'gate', name: 'h', qubits: [q], params: [] }));
  const c: Circuit = { numQubits: 20, numClbits: 0, qregs: [], cregs: [], ops, globalPhase: 0 };
  assert.equal(sparseCheck(c, c, { limit: 1000 }), null);
});
