import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit, GateOp, Operation } from '../circuit.ts';
import { equivalenceError } from '../optimizer/equivalence.ts';
import { optimize } from '../optimizer/index.ts';
import { randomCircuit } from '../optimizer/testkit.ts';
import { checkEquivalence } from './equivalence.ts';

const BASIS = ['cx', 'rz', 'sx', 'x'];

function mapping(r: ReturnType<typeof optimize>): { initialLayout: Record<number, number>; qubitMapping: Record<number, number> } {
  return { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping };
}

function withOps(c: Circuit, ops: Operation[]): Circuit {
  return { ...c, ops };
}

const gate = (name: string, qubits: number[], params: number[] = []): GateOp => ({ kind: 'gate', name, qubits, params });
const circuit = (n: number, ops: Operation[], numClbits = 0): Circuit => ({
  numQubits: n, numClbits, qregs: [{ name: 'q', size: n, offset: 0 }], cregs: numClbits ? [{ name: 'c', size: numClbits, offset: 0 }] : [], ops, globalPhase: 0,
});

test('on random circuits the diagram verdict agrees with the statevector check, and perturbations are not equivalent', () => {
  let seed = 900;
  for (let trial = 0; trial < 12; trial++) {
    const n = 2 + (trial % 4);
    const c = randomCircuit(n, 30, seed++, { controlRate: 0.05, unitaryRate: 0.03 });
    const r = optimize(c, { level: ([0, 1, 2, 3] as const)[trial % 4], basisGates: BASIS });
    const o = mapping(r);
    const label = `seed ${seed - 1}`;
    assert.ok(equivalenceError(c, r.circuit, o) < 1e-8, label);
    const ok = checkEquivalence(c, r.circuit, o);
    assert.equal(ok.verdict, 'equivalent', `${label}: ${ok.reason}`);
    assert.ok((ok.deviation ?? 1) < 1e-9, label);

    const ops = r.circuit.ops;
    const rot = ops.findIndex((op) => op.kind === 'gate' && op.name === 'rz');
    const cx = ops.findIndex((op) => op.kind === 'gate' && op.name === 'cx');
    const perturbed: Array<[string, Operation[]]> = [];
    if (rot >= 0) {
      const g = ops[rot] as GateOp;
      perturbed.push(['angle + 1e-3', ops.map((op, i) => (i === rot ? { ...g, params: [g.params[0] + 1e-3] } : op))]);
    }
    if (cx >= 0) {
      const g = ops[cx] as GateOp;
      perturbed.push(['cx reversed', ops.map((op, i) => (i === cx ? { ...g, qubits: [g.qubits[1], g.qubits[0]] } : op))]);
      perturbed.push(['cx dropped', ops.filter((_, i) => i !== cx)]);
    }
    assert.ok(perturbed.length > 0, label);
    for (const [what, bad] of perturbed) {
      const wrong = withOps(r.circuit, bad);
      assert.ok(equivalenceError(c, wrong, o) > 1e-12, `${label} ${what}: the statevector check sees it`);
      const d = checkEquivalence(c, wrong, o);
      assert.equal(d.verdict, 'not_equivalent', `${label} ${what}`);
      assert.ok((d.deviation ?? 0) > 1e-4, `${label} ${what}: deviation ${d.deviation}`);
    }
  }
});

test('a global phase is ignored by default and counted when asked', () => {
  const c = randomCircuit(3, 25, 42, {});
  const shifted = { ...c, globalPhase: c.globalPhase + 0.3 };
  assert.equal(checkEquivalence(c, shifted).verdict, 'equivalent');
  assert.equal(checkEquivalence(c, shifted, { ignoreGlobalPhase: false }).verdict, 'not_equivalent');
  assert.equal(checkEquivalence(c, c, { ignoreGlobalPhase: false }).verdict, 'equivalent');
  // The optimizer tracks the phase exactly, so its output matches with the phase counted.
  const r = optimize(c, { level: 3, basisGates: BASIS });
  assert.equal(checkEquivalence(c, r.circuit, { ...mapping(r), ignoreGlobalPhase: false }).verdict, 'equivalent');
});

test('circuits routed onto a coupling map are proven under the reported layouts, and not under a wrong one', () => {
  const line = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6]] as Array<[number, number]>;
  let seed = 300;
  for (let trial = 0; trial < 6; trial++) {
    const c = randomCircuit(4 + (trial % 3), 30, seed++, { names: ['h', 't', 'cx', 'cz', 'swap', 'ccx', 'rzz', 'u3'] });
    const level = ([1, 3] as const)[trial % 2];
    const r = optimize(c, { level, basisGates: BASIS, couplingMap: line });
    assert.ok(r.swaps > 0 || trial > 0, 'the first circuit needs routing');
    const d = checkEquivalence(c, r.circuit, mapping(r));
    assert.equal(d.verdict, 'equivalent', `seed ${seed - 1} level ${level}: ${d.reason}`);
    const wrong = { ...r.qubitMapping, 0: r.qubitMapping[1], 1: r.qubitMapping[0] };
    assert.equal(checkEquivalence(c, r.circuit, { initialLayout: r.initialLayout, qubitMapping: wrong }).verdict, 'not_equivalent');
  }
});

test('ancilla qubits count only from |0>, and must come back to |0>', () => {
  // Logical 1 starts on physical 2; a SWAP through ancilla 1 brings it next to logical 0.
  const original = circuit(2, [gate('h', [0]), gate('cx', [0, 1])]);
  const layout = { initialLayout: { 0: 0, 1: 2 }, qubitMapping: { 0: 0, 1: 1 } };
  const routed = [gate('h', [0]), gate('swap', [1, 2]), gate('cx', [0, 1])];
  assert.equal(checkEquivalence(original, circuit(3, routed), layout).verdict, 'equivalent');
  // Gates that act only when the ancilla (physical 1) is |1> change nothing.
  assert.equal(checkEquivalence(original, circuit(3, [gate('cz', [1, 0]), gate('ch', [1, 2]), ...routed]), {
    initialLayout: { 0: 0, 1: 2 }, qubitMapping: { 0: 0, 1: 1 },
  }).verdict, 'equivalent');
  // Leaving the ancilla in |1>, or entangled with the data, is wrong.
  assert.equal(checkEquivalence(original, circuit(3, [...routed, gate('x', [2])]), layout).verdict, 'not_equivalent');
  assert.equal(checkEquivalence(original, circuit(3, [...routed, gate('cx', [0, 2])]), layout).verdict, 'not_equivalent');
});

test('final measurements must read the mapped qubits into the same bits', () => {
  const original = circuit(2, [gate('h', [0]), gate('cx', [0, 1]), { kind: 'measure', qubit: 1, clbit: 0 }], 2);
  const swapped = circuit(2, [gate('h', [0]), gate('cx', [0, 1]), gate('swap', [0, 1]), { kind: 'measure', qubit: 0, clbit: 0 }], 2);
  const layout = { initialLayout: { 0: 0, 1: 1 }, qubitMapping: { 0: 1, 1: 0 } };
  assert.equal(checkEquivalence(original, swapped, layout).verdict, 'equivalent');
  const wrongBit = circuit(2, [gate('h', [0]), gate('cx', [0, 1]), gate('swap', [0, 1]), { kind: 'measure', qubit: 0, clbit: 1 }], 2);
  assert.equal(checkEquivalence(original, wrongBit, layout).verdict, 'not_equivalent');
});

test('mid-circuit measurements and conditions are proven with the measurements deferred', () => {
  const measure = (qubit: number, clbit: number): Operation => ({ kind: 'measure', qubit, clbit });
  const iff = (g: GateOp, clbits: number[], value: number): GateOp => ({ ...g, condition: { clbits, value } });
  const original = circuit(3, [gate('h', [0]), measure(0, 0), gate('h', [0]), iff(gate('x', [1]), [0, 1], 1), gate('cx', [1, 2]), measure(2, 1)], 2);
  assert.equal(checkEquivalence(original, original).verdict, 'equivalent');
  const r = optimize(original, { level: 3, basisGates: BASIS });
  assert.equal(checkEquivalence(original, r.circuit, mapping(r)).verdict, 'equivalent');
  // The same gates under the other condition value, or the measurement moved past the H.
  const otherValue = circuit(3, [gate('h', [0]), measure(0, 0), gate('h', [0]), iff(gate('x', [1]), [0, 1], 0), gate('cx', [1, 2]), measure(2, 1)], 2);
  assert.equal(checkEquivalence(original, otherValue).verdict, 'inconclusive');
  const moved = circuit(3, [gate('h', [0]), gate('h', [0]), measure(0, 0), iff(gate('x', [1]), [0, 1], 1), gate('cx', [1, 2]), measure(2, 1)], 2);
  const d = checkEquivalence(original, moved);
  assert.equal(d.verdict, 'inconclusive');
  assert.ok((d.deviation ?? 0) > 0.1);
});

test('resets and classical bits written twice are deferred onto fresh lines', () => {
  const measure = (qubit: number, clbit: number): Operation => ({ kind: 'measure', qubit, clbit });
  const reset = (qubit: number): Operation => ({ kind: 'reset', qubit });
  const iff = (g: GateOp): GateOp => ({ ...g, condition: { clbits: [0], value: 1 } });
  // Measure, reset and reuse a qubit; bit 0 is written twice and read between the writes.
  const ops = [gate('h', [0]), measure(0, 0), reset(0), iff(gate('x', [1])), gate('ry', [0], [0.4]), measure(0, 0), gate('cx', [1, 0]), measure(1, 1)];
  const original = circuit(2, ops, 2);
  assert.equal(checkEquivalence(original, original).verdict, 'equivalent');
  for (const level of [1, 3] as const) {
    const r = optimize(original, { level, basisGates: BASIS });
    assert.equal(checkEquivalence(original, r.circuit, mapping(r)).verdict, 'equivalent', `level ${level}`);
  }
  // Without the reset the reused qubit keeps its state; with the ry angle changed the second record differs.
  assert.notEqual(checkEquivalence(original, circuit(2, ops.filter((o) => o.kind !== 'reset'), 2)).verdict, 'equivalent');
  const changed = ops.map((o) => (o.kind === 'gate' && o.name === 'ry' ? gate('ry', [0], [0.5]) : o));
  assert.notEqual(checkEquivalence(original, circuit(2, changed, 2)).verdict, 'equivalent');
});

test('a conditioned gate\'s global phase is unobservable: if (c) u1 and if (c) rz are one gate, a changed angle is not', () => {
  const measure = (qubit: number, clbit: number): Operation => ({ kind: 'measure', qubit, clbit });
  const iff = (g: GateOp): GateOp => ({ ...g, condition: { clbits: [0], value: 1 } });
  const withGate = (g: GateOp): Circuit => circuit(2, [gate('h', [0]), measure(0, 0), gate('h', [1]), iff(g), gate('h', [1]), measure(1, 1)], 2);
  const u1 = withGate(gate('u1', [1], [Math.PI / 2]));
  assert.equal(checkEquivalence(u1, withGate(gate('rz', [1], [Math.PI / 2]))).verdict, 'equivalent');
  assert.equal(checkEquivalence(u1, withGate(gate('p', [1], [Math.PI / 2]))).verdict, 'equivalent');
  assert.notEqual(checkEquivalence(u1, withGate(gate('rz', [1], [Math.PI / 2 + 0.1]))).verdict, 'equivalent');
  assert.notEqual(checkEquivalence(u1, withGate(gate('rx', [1], [Math.PI / 2]))).verdict, 'equivalent');
});

test('a diagram that outgrows its node budget is inconclusive, not a hang', () => {
  const c = randomCircuit(10, 200, 5, { names: ['h', 'cx', 'u3', 't'] });
  const other = randomCircuit(10, 200, 6, { names: ['h', 'cx', 'u3', 't'] });
  const d = checkEquivalence(c, other, { maxNodes: 200 });
  assert.equal(d.verdict, 'inconclusive');
  assert.match(d.reason ?? '', /nodes/);
});
