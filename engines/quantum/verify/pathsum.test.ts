import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Circuit, GateOp, Operation } from '../circuit.ts';
import { equivalenceError } from '../optimizer/equivalence.ts';
import { optimize } from '../optimizer/index.ts';
import { randomCircuit } from '../optimizer/testkit.ts';
import { parseQasm } from '../qasm/index.ts';
import { isConstantPhase } from './pathsum.ts';
import { checkPathSum } from './pathsum-check.ts';

const NAM_BASIS = ['cx', 'h', 'rz', 'x'];
const CLIFFORD_T = ['h', 'x', 'z', 's', 'sdg', 't', 'tdg', 'rz', 'cx', 'cz', 'ccx', 'ccz', 'swap'];

const gate = (name: string, qubits: number[], params: number[] = []): GateOp => ({ kind: 'gate', name, qubits, params });
const circuit = (n: number, ops: Operation[]): Circuit => ({
  numQubits: n, numClbits: 0, qregs: [{ name: 'q', size: n, offset: 0 }], cregs: [], ops, globalPhase: 0,
});
const layoutOf = (r: ReturnType<typeof optimize>) => ({ initialLayout: r.initialLayout, qubitMapping: r.qubitMapping });

test('identities that need the HH rule are proven, and small differences are not', () => {
  // H H = I, H X H = Z, and a Toffoli against its 7-T decomposition written out.
  assert.equal(checkPathSum(circuit(1, [gate('h', [0]), gate('h', [0])]), circuit(1, [])).verdict, 'equivalent');
  assert.equal(checkPathSum(circuit(1, [gate('h', [0]), gate('x', [0]), gate('h', [0])]), circuit(1, [gate('z', [0])])).verdict, 'equivalent');
  const tof = circuit(3, [gate('ccx', [0, 1, 2])]);
  const written = circuit(3, [
    gate('h', [2]), gate('cx', [1, 2]), gate('tdg', [2]), gate('cx', [0, 2]), gate('t', [2]), gate('cx', [1, 2]), gate('tdg', [2]),
    gate('cx', [0, 2]), gate('t', [1]), gate('t', [2]), gate('h', [2]), gate('cx', [0, 1]), gate('t', [0]), gate('tdg', [1]), gate('cx', [0, 1]),
  ]);
  assert.equal(checkPathSum(tof, written).verdict, 'equivalent');
  // A T for a Tdg, a CX reversed, a missing H: none is proven.
  const bad = [
    circuit(3, written.ops.map((op, i) => (i === 12 ? gate('tdg', [0]) : op))),
    circuit(3, written.ops.map((op, i) => (i === 11 ? gate('cx', [1, 0]) : op))),
    circuit(3, written.ops.slice(1)),
  ];
  for (const b of bad) assert.notEqual(checkPathSum(tof, b).verdict, 'equivalent');
  // Without H the product is a phase times a permutation, so a difference is decided.
  assert.equal(checkPathSum(circuit(2, [gate('cx', [0, 1])]), circuit(2, [gate('cx', [1, 0])])).verdict, 'not_equivalent');
  assert.equal(checkPathSum(circuit(2, [gate('t', [0])]), circuit(2, [gate('tdg', [0])])).verdict, 'not_equivalent');
  // CCZ equals H CCX H on its target.
  assert.equal(checkPathSum(circuit(3, [gate('ccz', [0, 1, 2])]), circuit(3, [gate('h', [2]), gate('ccx', [0, 1, 2]), gate('h', [2])])).verdict, 'equivalent');
});

test('phases are compared on their multilinear form: pi/4 rotations on parities that sum to a constant', () => {
  const q = Math.PI / 4;
  // 2 pi x0 x1 x2 x3 as sixteen parities of angle +-pi/4 minus the constant: no Fourier term
  // cancels another, yet the sum is 0 mod 2 pi.
  const terms: Array<{ vars: number[]; coef: number }> = [];
  for (let s = 1; s < 16; s++) {
    const vars = [0, 1, 2, 3].filter((i) => s & (1 << i));
    terms.push({ vars, coef: vars.length % 2 ? q : -q });
  }
  assert.equal(isConstantPhase(terms), true);
  assert.equal(isConstantPhase(terms.slice(1)), false);
  assert.equal(isConstantPhase([{ vars: [0, 1], coef: 0.3 }]), null);
});

test('on random Clifford+T circuits the path-sum verdict agrees with the statevector check', () => {
  let proven = 0;
  let trials = 0;
  for (let seed = 1; seed <= 24; seed++) {
    const n = 3 + (seed % 4);
    const c = randomCircuit(n, 40, 7000 + seed, { names: CLIFFORD_T, discreteAngles: true });
    const r = optimize(c, { level: ([1, 2, 3] as const)[seed % 3], basisGates: NAM_BASIS });
    const o = layoutOf(r);
    assert.ok(equivalenceError(c, r.circuit, o) < 1e-8);
    const ok = checkPathSum(c, r.circuit, o);
    assert.notEqual(ok.verdict, 'not_equivalent', `seed ${seed}: ${ok.reason}`);
    trials++;
    if (ok.verdict === 'equivalent') proven++;
    // One gate changed: an rz angle, a CX reversed, an H dropped. Each changes the operator
    // (the statevector check says so), and the path sum never calls it equivalent.
    const ops = r.circuit.ops;
    const changed: Operation[][] = [];
    const rz = ops.findIndex((op) => op.kind === 'gate' && op.name === 'rz');
    if (rz >= 0) changed.push(ops.map((op, i) => (i === rz ? { ...(op as GateOp), params: [(op as GateOp).params[0]! + Math.PI / 2] } : op)));
    const cx = ops.findIndex((op) => op.kind === 'gate' && op.name === 'cx');
    if (cx >= 0) changed.push(ops.map((op, i) => (i === cx ? gate('cx', [...(op as GateOp).qubits].reverse()) : op)));
    const h = ops.findIndex((op) => op.kind === 'gate' && op.name === 'h');
    if (h >= 0) changed.push(ops.filter((_, i) => i !== h));
    for (const bad of changed) {
      const b = { ...r.circuit, ops: bad };
      const err = equivalenceError(c, b, { ...o, ignoreGlobalPhase: true });
      const v = checkPathSum(c, b, o);
      if (err > 1e-6) assert.notEqual(v.verdict, 'equivalent', `seed ${seed}: a changed gate was proven equivalent`);
      if (v.verdict === 'not_equivalent') assert.ok(err > 1e-6, `seed ${seed}: called different but equal`);
    }
  }
  // Most are decided (the rest, left inconclusive, would fall back to decision diagrams).
  assert.ok(proven >= trials * 0.75, `${proven} of ${trials} proven`);
});

test('on random circuits of any gates and angles a verdict is never wrong', () => {
  for (let seed = 1; seed <= 16; seed++) {
    const n = 2 + (seed % 4);
    const c = randomCircuit(n, 25, 8100 + seed, { controlRate: 0.05 });
    const r = optimize(c, { level: 2, basisGates: ['cx', 'rz', 'sx', 'x'] });
    const o = layoutOf(r);
    const v = checkPathSum(c, r.circuit, o);
    assert.notEqual(v.verdict, 'not_equivalent', `seed ${seed}: ${v.reason}`);
    const ops = r.circuit.ops;
    const drop = ops.findIndex((op) => op.kind === 'gate' && op.name === 'cx');
    if (drop < 0) continue;
    const b = { ...r.circuit, ops: ops.filter((_, i) => i !== drop) };
    const err = equivalenceError(c, b, { ...o, ignoreGlobalPhase: true });
    const w = checkPathSum(c, b, o);
    if (w.verdict === 'equivalent') assert.ok(err < 1e-8, `seed ${seed}: proven but the states differ by ${err}`);
    if (w.verdict === 'not_equivalent') assert.ok(err > 1e-6, `seed ${seed}: called different but equal`);
  }
});

test('a 48-qubit multiplier with its rotations relocated is proven in well under a second, and not once a gate is removed', () => {
  const c = parseQasm(readFileSync(fileURLToPath(new URL('../../../fixtures/nam/gf2^16_mult.qasm', import.meta.url)), 'utf8'));
  // Its products as written: Karatsuba's (the default) write the cubic phase in other parities,
  // which phase-affine.test.ts proves.
  const r = optimize(c, { level: 3, basisGates: NAM_BASIS, multipliers: false });
  const o = layoutOf(r);
  const ok = checkPathSum(c, r.circuit, o);
  assert.equal(ok.verdict, 'equivalent', ok.reason);
  const at = (name: string): number[] => r.circuit.ops.flatMap((op, i) => (op.kind === 'gate' && op.name === name ? [i] : []));
  for (const name of ['rz', 'cx', 'h']) {
    const list = at(name);
    const drop = list[Math.floor(list.length / 2)];
    const bad = checkPathSum(c, { ...r.circuit, ops: r.circuit.ops.filter((_, i) => i !== drop) }, o);
    assert.notEqual(bad.verdict, 'equivalent', `${name} dropped`);
  }
});
