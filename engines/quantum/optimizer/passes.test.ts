import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseQasm } from '../qasm/index.ts';
import type { Circuit, GateOp } from '../circuit.ts';
import { equivalenceError } from './equivalence.ts';
import { counts, optimize } from './index.ts';

const circ = (n: number, ops: Array<[string, number[], number[]?]>, numClbits = 0): Circuit => ({
  numQubits: n,
  numClbits,
  qregs: [{ name: 'q', size: n, offset: 0 }],
  cregs: numClbits ? [{ name: 'c', size: numClbits, offset: 0 }] : [],
  ops: ops.map(([name, qubits, params]) => ({ kind: 'gate', name, qubits, params: params ?? [] }) as GateOp),
  globalPhase: 0,
});

const nam = (name: string): Circuit =>
  parseQasm(readFileSync(fileURLToPath(new URL(`../../../fixtures/nam/${name}.qasm`, import.meta.url)), 'utf8'));

const gateNames = (c: Circuit): string[] => c.ops.map((o) => (o.kind === 'gate' ? o.name : o.kind));

test('level 1 cancels adjacent inverse pairs but level 0 only translates', () => {
  const c = circ(2, [['h', [0]], ['h', [0]], ['cx', [0, 1]], ['cx', [0, 1]], ['t', [1]], ['tdg', [1]]]);
  assert.equal(counts(optimize(c, { level: 0, basisGates: ['cx', 'h', 'rz'] }).circuit).gates, 6);
  assert.equal(counts(optimize(c, { level: 1, basisGates: ['cx', 'h', 'rz'] }).circuit).gates, 0);
});

test('level 2 cancels CX pairs through gates that commute with them, level 1 does not', () => {
  // rz on the control and x on the target commute with CX; a CX sharing the control too.
  const c = circ(3, [['cx', [0, 1]], ['rz', [0], [0.3]], ['x', [1]], ['cx', [0, 2]], ['cx', [0, 1]]]);
  const basis = ['cx', 'rz', 'sx', 'x'];
  const l1 = optimize(c, { level: 1, basisGates: basis });
  const l2 = optimize(c, { level: 2, basisGates: basis });
  assert.equal(counts(l1.circuit).twoQubit, 3);
  assert.equal(counts(l2.circuit).twoQubit, 1);
  assert.ok(equivalenceError(c, l2.circuit) < 1e-9);
});

test('level 2 merges rotations on the same parity across CX gates', () => {
  // q1 carries x1, then x0+x1, then x1 again: the outer t gates merge into one rotation.
  const c = circ(2, [['t', [1]], ['cx', [0, 1]], ['t', [1]], ['cx', [0, 1]], ['t', [1]]]);
  const l1 = optimize(c, { level: 1, basisGates: ['cx', 'h', 'rz'] });
  const l2 = optimize(c, { level: 2, basisGates: ['cx', 'h', 'rz'] });
  assert.equal(counts(l1.circuit).byName.rz, 3);
  assert.equal(counts(l2.circuit).byName.rz, 2);
  assert.equal(counts(l2.circuit).twoQubit, 2);
  assert.ok(equivalenceError(c, l2.circuit) < 1e-9);
});

test('level 3 resynthesizes a two-qubit block with more CX than it needs', () => {
  // CX X(control) CX = X x X: two CX that level 2 keeps, a local gate in fact.
  const c = circ(2, [['cx', [0, 1]], ['x', [0]], ['cx', [0, 1]]]);
  const l2 = optimize(c, { level: 2, basisGates: ['u3', 'cx'] });
  const l3 = optimize(c, { level: 3, basisGates: ['u3', 'cx'] });
  assert.ok(counts(l3.circuit).twoQubit < counts(l2.circuit).twoQubit, `${counts(l3.circuit).twoQubit} vs ${counts(l2.circuit).twoQubit}`);
  assert.ok(equivalenceError(c, l3.circuit) < 1e-9);
});

test('barriers block optimization across them', () => {
  const c: Circuit = circ(1, [['h', [0]]]);
  c.ops.push({ kind: 'barrier', qubits: [0] }, { kind: 'gate', name: 'h', qubits: [0], params: [] });
  const r = optimize(c, { level: 3, basisGates: ['u3', 'cx'] });
  assert.deepEqual(gateNames(r.circuit), ['u3', 'barrier', 'u3']);
});

test('measurements, resets and conditioned gates keep their order, bits and conditions', () => {
  const c = circ(2, [['h', [0]], ['cx', [0, 1]]], 2);
  c.ops.push(
    { kind: 'measure', qubit: 0, clbit: 0 },
    { kind: 'gate', name: 'x', qubits: [1], params: [], condition: { clbits: [0], value: 1 } },
    { kind: 'gate', name: 'x', qubits: [1], params: [], condition: { clbits: [0], value: 1 } },
    { kind: 'reset', qubit: 0 },
    { kind: 'gate', name: 'h', qubits: [0], params: [] },
    { kind: 'measure', qubit: 1, clbit: 1 },
  );
  for (const level of [0, 1, 2, 3] as const) {
    const r = optimize(c, { level, basisGates: ['u3', 'cx'], couplingMap: [[0, 1], [1, 2]] });
    const special = r.circuit.ops.filter((o) => o.kind !== 'gate' || o.condition);
    const kinds = special.map((o) => o.kind);
    assert.equal(kinds.filter((k) => k === 'gate').length, 2, `level ${level}: ${gateNames(r.circuit)}`);
    assert.equal(kinds.indexOf('measure'), 0, 'the conditioned gates follow the measurement of their bit');
    const m0 = special[0];
    const m1 = special.filter((o) => o.kind === 'measure')[1];
    const wire0 = r.circuit.ops.filter((o) => (o.kind === 'measure' || o.kind === 'reset' ? o.qubit : o.kind === 'gate' ? o.qubits[0] : -1) === r.initialLayout[0] && o.kind !== 'gate');
    assert.deepEqual(wire0.map((o) => o.kind), ['measure', 'reset'], 'measure then reset on q0');
    assert.ok(m0.kind === 'measure' && m1.kind === 'measure');
    assert.equal(m0.clbit, 0);
    assert.equal(m1.clbit, 1);
    assert.equal(m0.qubit, r.initialLayout[0], 'q0 is measured where it was placed (nothing moved it before)');
    for (const o of special) if (o.kind === 'gate') assert.ok(o.condition?.value === 1 && o.condition.clbits[0] === 0);
  }
});

test('metrics report depth and gate counts of input and output', () => {
  const c = circ(2, [['h', [0]], ['h', [0]], ['cx', [0, 1]], ['x', [1]]]);
  const r = optimize(c, { level: 1, basisGates: ['cx', 'rz', 'sx', 'x'] });
  assert.equal(r.metrics.original_depth, 4);
  assert.equal(r.metrics.original_gates, 4);
  assert.equal(r.metrics.optimized_gates, 2);
  assert.equal(r.metrics.optimized_depth, 2);
  assert.equal(r.metrics.gate_reduction_percent, 50);
  assert.equal(r.metrics.depth_reduction_percent, 50);
});

test('bad options are refused with a message', () => {
  const c = circ(3, [['ccx', [0, 1, 2]]]);
  assert.throws(() => optimize(c, { level: 4 as 3 }), /level/);
  assert.throws(() => optimize(c, { couplingMap: [[0, 1]] }), /needs 3 qubits/);
  assert.throws(() => optimize(c, { couplingMap: [[0, 1], [2, 3]] }), /connected/);
  assert.throws(() => optimize(c, { basisGates: ['h', 'cx'] }), /cannot express/);
});

test('Hadamard reduction removes H gates around quarter turns and CX', () => {
  const basis = ['cx', 'h', 'rz'];
  const cases: Array<[Circuit, Record<string, number>]> = [
    // H S H = S' H S': one H left, and the S' merge with the t gates around.
    [circ(1, [['t', [0]], ['h', [0]], ['s', [0]], ['h', [0]], ['t', [0]]]), { rz: 2, h: 1 }],
    // (H x H) CX (H x H) = reversed CX.
    [circ(2, [['h', [0]], ['h', [1]], ['cx', [0, 1]], ['h', [0]], ['h', [1]]]), { cx: 1 }],
    // H S CX S' H on the target = S' CX S.
    [circ(2, [['h', [1]], ['s', [1]], ['cx', [0, 1]], ['sdg', [1]], ['h', [1]]]), { rz: 2, cx: 1 }],
  ];
  for (const [c, expected] of cases) {
    const r = optimize(c, { level: 2, basisGates: basis });
    assert.deepEqual(counts(r.circuit).byName, expected);
    assert.ok(equivalenceError(c, r.circuit) < 1e-9);
  }
});

test('on the Nam suite circuit tof_3, level 2 reaches 35 gates with 14 CX (from 45 and 18)', () => {
  const c = nam('tof_3');
  const basis = ['cx', 'h', 'rz', 'x'];
  const l0 = counts(optimize(c, { level: 0, basisGates: basis }).circuit);
  const l2 = optimize(c, { level: 2, basisGates: basis });
  assert.deepEqual([l0.gates, l0.twoQubit], [45, 18]);
  assert.deepEqual([counts(l2.circuit).gates, counts(l2.circuit).twoQubit], [35, 14]);
  assert.ok(equivalenceError(c, l2.circuit) < 1e-9);
});

test('level 3 finds CCZ decompositions that cancel better on barenco_tof_3', () => {
  const c = nam('barenco_tof_3');
  const basis = ['cx', 'h', 'rz', 'x'];
  const l2 = counts(optimize(c, { level: 2, basisGates: basis }).circuit);
  const r3 = optimize(c, { level: 3, basisGates: basis });
  const l3 = counts(r3.circuit);
  assert.ok(l3.twoQubit < l2.twoQubit && l3.gates <= l2.gates, `level 2 ${l2.gates}/${l2.twoQubit}, level 3 ${l3.gates}/${l3.twoQubit}`);
  assert.ok(equivalenceError(c, r3.circuit) < 1e-9);
});
