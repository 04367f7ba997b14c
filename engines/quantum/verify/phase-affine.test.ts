import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit, GateOp } from '../circuit.ts';
import { equivalenceError } from '../optimizer/equivalence.ts';
import { optimize } from '../optimizer/index.ts';
import { rng } from '../optimizer/sim.ts';
import { nam } from '../optimizer/testkit.ts';
import { checkPhaseAffine } from './phase-affine.ts';
import { isConstantPhaseForm } from './phase-form.ts';

const g = (name: string, qubits: number[], params: number[] = []): GateOp => ({ kind: 'gate', name, qubits, params });
const circuit = (n: number, ops: GateOp[]): Circuit => ({ numQubits: n, numClbits: 0, qregs: [{ name: 'q', size: n, offset: 0 }], cregs: [], ops, globalPhase: 0 });
const parity = (...vars: number[]): Uint32Array => {
  const v = new Uint32Array(1);
  for (const i of vars) v[0] |= 1 << i;
  return v;
};

test('the phase form: 4 x0 x1 and 4 x0 x1 x2 written as parities are not constant, twice them are', () => {
  // 4 x0 x1 = 2 [x0] + 2 [x1] - 2 [x0 + x1].
  const cz = [{ p: parity(0), k: 2 }, { p: parity(1), k: 2 }, { p: parity(0, 1), k: 6 }];
  assert.equal(isConstantPhaseForm(cz, 3), false);
  assert.equal(isConstantPhaseForm(cz.map((t) => ({ ...t, k: (2 * t.k) % 8 })), 3), true);
  // 4 x0 x1 x2 = [x0] + [x1] + [x2] - [x0+x1] - [x0+x2] - [x1+x2] + [x0+x1+x2] (the CCZ's T gates).
  const ccz = [
    { p: parity(0), k: 1 }, { p: parity(1), k: 1 }, { p: parity(2), k: 1 },
    { p: parity(0, 1), k: 7 }, { p: parity(0, 2), k: 7 }, { p: parity(1, 2), k: 7 }, { p: parity(0, 1, 2), k: 1 },
  ];
  assert.equal(isConstantPhaseForm(ccz, 3), false);
  assert.equal(isConstantPhaseForm([...ccz, ...ccz], 3), true);
  // The cubic part alone differs: the same terms with the last one's sign flipped.
  assert.equal(isConstantPhaseForm([...ccz, ...ccz.slice(0, 6), { p: parity(0, 1, 2), k: 7 }], 3), false);
  assert.equal(isConstantPhaseForm([{ p: parity(0, 1, 2), k: 0 }], 3), true);
});

/** A random circuit H_W P H_W: H on W, CX, X, T-type rotations and CCZ, H on W (all multiples of pi/4). */
function hph(n: number, size: number, seed: number): Circuit {
  const r = rng(seed);
  const pick = (): number => Math.floor(r() * n);
  const w = [...Array(n).keys()].filter(() => r() < 0.5);
  const ops: GateOp[] = w.map((q) => g('h', [q]));
  for (let i = 0; i < size; i++) {
    const kind = r();
    const a = pick();
    let b = pick();
    if (b === a) b = (a + 1) % n;
    let c = pick();
    while (c === a || c === b) c = (c + 1) % n;
    if (kind < 0.35) ops.push(g('cx', [a, b]));
    else if (kind < 0.45) ops.push(g('x', [a]));
    else if (kind < 0.8) ops.push(g(['t', 'tdg', 's', 'sdg', 'z'][Math.floor(r() * 5)]!, [a]));
    else if (kind < 0.9) ops.push(g('rz', [a], [(Math.floor(r() * 8) * Math.PI) / 4]));
    else ops.push(g('ccz', [a, b, c]));
  }
  ops.push(...w.map((q) => g('h', [q])));
  return circuit(n, ops);
}

test('random H-framed phase circuits: verdicts agree with the statevector, before and after a gate is dropped', () => {
  let decided = 0;
  let different = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const c = hph(4 + (seed % 4), 40, seed);
    const r = optimize(c, { level: 2, basisGates: ['cx', 'h', 'rz', 'x'] });
    const layout = { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping };
    const same = checkPhaseAffine(c, r.circuit, layout);
    assert.notEqual(same.verdict, 'not_equivalent', `seed ${seed}: ${same.reason}`);
    if (same.verdict === 'equivalent') decided++;
    const drop = 1 + Math.floor(rng(seed + 1000)() * (c.ops.length - 2));
    const broken = { ...c, ops: c.ops.filter((_, i) => i !== drop) };
    const verdict = checkPhaseAffine(c, broken).verdict;
    const err = equivalenceError(c, broken, { ignoreGlobalPhase: true });
    if (verdict === 'equivalent') assert.ok(err < 1e-8, `seed ${seed}: proven but the states differ by ${err}`);
    if (verdict === 'not_equivalent') {
      assert.ok(err > 1e-6, `seed ${seed}: called different but equal`);
      different++;
    }
  }
  // The check must decide most of them, not stay inconclusive.
  assert.ok(decided >= 30, `${decided} of 40 optimized circuits proven`);
  assert.ok(different >= 20, `${different} of 40 broken circuits refuted`);
});

test('the global phase counts when asked: Z X Z X is -1', () => {
  const c = circuit(2, [g('h', [0]), g('t', [1]), g('h', [0])]);
  const zxzx = circuit(2, [g('h', [0]), g('t', [1]), g('z', [0]), g('x', [0]), g('z', [0]), g('x', [0]), g('h', [0])]);
  assert.equal(checkPhaseAffine(c, zxzx).verdict, 'equivalent');
  assert.equal(checkPhaseAffine(c, zxzx, { ignoreGlobalPhase: false }).verdict, 'not_equivalent');
});

test('outside the class it is inconclusive: rotations on both sides of an H, an arbitrary angle, a CX out of the H frame', () => {
  const base = circuit(2, [g('h', [0]), g('t', [0]), g('h', [0]), g('t', [0]), g('h', [0])]);
  assert.equal(checkPhaseAffine(base, base).verdict, 'inconclusive');
  const angle = circuit(2, [g('h', [0]), g('rz', [0], [0.3]), g('h', [0])]);
  assert.equal(checkPhaseAffine(angle, angle).verdict, 'inconclusive');
  const out = circuit(2, [g('h', [0]), g('t', [0]), g('h', [0]), g('cx', [0, 1]), g('t', [1])]);
  assert.equal(checkPhaseAffine(out, out).verdict, 'inconclusive');
  // Without any H it is a plain phase polynomial, and decided.
  const plain = circuit(2, [g('t', [0]), g('cx', [0, 1])]);
  assert.equal(checkPhaseAffine(plain, plain).verdict, 'equivalent');
  assert.equal(checkPhaseAffine(plain, circuit(2, [g('cx', [0, 1]), g('t', [0])])).verdict, 'equivalent');
  assert.equal(checkPhaseAffine(plain, circuit(2, [g('cx', [0, 1]), g('t', [1])])).verdict, 'not_equivalent');
});

test('gf2^16_mult at level 3 (48 qubits, Karatsuba products) is proven, and not once an rz, a CX or an H is removed', () => {
  const c = nam('gf2^16_mult');
  const r = optimize(c, { level: 3, basisGates: ['cx', 'h', 'rz', 'x'] });
  const layout = { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping };
  const ok = checkPhaseAffine(c, r.circuit, layout);
  assert.equal(ok.verdict, 'equivalent', ok.reason);
  const at = (name: string): number[] => r.circuit.ops.flatMap((op, i) => (op.kind === 'gate' && op.name === name ? [i] : []));
  for (const name of ['rz', 'cx', 'h']) {
    const list = at(name);
    const drop = list[Math.floor(list.length / 2)];
    const bad = checkPhaseAffine(c, { ...r.circuit, ops: r.circuit.ops.filter((_, i) => i !== drop) }, layout);
    assert.notEqual(bad.verdict, 'equivalent', `${name} dropped`);
  }
});
