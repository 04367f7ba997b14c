import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit, GateOp } from '../circuit.ts';
import { checkPhaseAffine } from '../verify/phase-affine.ts';
import { equivalenceError } from './equivalence.ts';
import { counts, optimize } from './index.ts';
import { karatsubaMultipliers, karatsubaProducts, productForms, readClassicalMap } from './karatsuba.ts';
import { rng } from './sim.ts';
import { nam } from './testkit.ts';

const g = (name: string, qubits: number[]): GateOp => ({ kind: 'gate', name, qubits, params: [] });
const FORMS = [...productForms(true), { inPlace: true, schoolbook: 1 }];

/**
 * A schoolbook multiplier on a = q[0..n), b = q[n..2n), c = q[2n..3n): c_k += a_i b_j for
 * every k in reduction[i + j] (a Toffoli each, as CCZ between H or as CCX), with a random
 * linear part around it (CX among the c wires and from a and b onto c, X on c).
 */
function schoolbook(n: number, seed: number, options: { reversedB?: boolean; ccx?: boolean; field?: number } = {}): Circuit {
  const r = rng(seed);
  const reduction = Array.from({ length: 2 * n - 1 }, () => [...Array(n).keys()].filter(() => r() < 0.4).map((k) => 2 * n + k));
  reduction[0]!.push(2 * n); // the first coefficient in use
  if (options.field) {
    // Coefficient s goes to the wires of x^s mod the field's polynomial (its bits, x^n included).
    let x = 1;
    for (let s = 0; s < 2 * n - 1; s++) {
      reduction[s] = [...Array(n).keys()].filter((k) => (x >> k) & 1).map((k) => 2 * n + k);
      x <<= 1;
      if ((x >> n) & 1) x ^= options.field;
    }
  }
  const ops: GateOp[] = [];
  const linear = (): void => {
    for (let s = 0; s < n; s++) {
      const t = 2 * n + Math.floor(r() * n);
      const c = r() < 0.5 ? 2 * n + Math.floor(r() * n) : Math.floor(r() * 2 * n);
      if (c !== t) ops.push(g('cx', [c, t]));
      if (r() < 0.2) ops.push(g('x', [t]));
    }
  };
  linear();
  const b = (j: number): number => (options.reversedB ? 2 * n - 1 - j : n + j);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      for (const k of new Set(reduction[i + j])) {
        if (options.ccx) ops.push(g('ccx', [i, b(j), k]));
        else ops.push(g('h', [k]), g('ccz', [i, b(j), k]), g('h', [k]));
      }
    }
  }
  linear();
  return { numQubits: 3 * n, numClbits: 0, qregs: [{ name: 'q', size: 3 * n, offset: 0 }], cregs: [], ops, globalPhase: 0 };
}

test("Karatsuba's recursion covers every coefficient of a(x) b(x) once, with 3^log2(n) products", () => {
  for (const n of [1, 2, 3, 4, 5, 7, 8, 16]) {
    const a = [...Array(n).keys()];
    const b = a.map((i) => 100 + i);
    const wires = new Map<number, Set<number>>([...a, ...b].map((w) => [w, new Set([w])]));
    // Coefficient s of the product is sum over i + j = s of a_i b_j: count each (i, j) pair's hits.
    const hits = new Map<string, number>();
    let products = 0;
    karatsubaProducts(
      a,
      b,
      (aw, bw, coefficients) => {
        products++;
        for (const i of wires.get(aw)!) for (const j of wires.get(bw)!) for (const s of coefficients) {
          const key = `${i},${j - 100},${s}`;
          hits.set(key, (hits.get(key) ?? 0) ^ 1);
        }
      },
      (from, to) => {
        const t = wires.get(to)!;
        for (const w of wires.get(from)!) if (!t.delete(w)) t.add(w);
      },
    );
    const want = new Set<string>();
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) want.add(`${i},${j},${i + j}`);
    const got = new Set([...hits].filter(([, v]) => v).map(([k]) => k));
    assert.deepEqual([...got].sort(), [...want].sort(), `n = ${n}`);
    if ((n & (n - 1)) === 0) assert.equal(products, 3 ** Math.log2(n), `n = ${n}`);
    // Every operand sum is undone.
    for (const [w, set] of wires) assert.deepEqual([...set], [w]);
  }
});

// Field polynomials (x^n included): x^4 + x + 1, x^5 + x^2 + 1, x^7 + x + 1, x^9 + x^4 + 1, x^12 + x^3 + 1, x^16 + x^5 + x^3 + x^2 + 1.
const FIELD: Record<number, number> = { 4: 0x13, 5: 0x25, 7: 0x83, 9: 0x211, 12: 0x1009, 16: 0x1002d };

test('random multipliers are rewritten to the same unitary (statevector, 12 and 15 qubits); field reductions in every form', () => {
  for (let seed = 1; seed <= 8; seed++) {
    const n = seed <= 4 ? 4 : 5;
    const field = seed % 2 ? FIELD[n] : undefined;
    const c = schoolbook(n, seed, { reversedB: seed % 4 < 2, ccx: seed % 3 === 0, field });
    const rewritten = karatsubaMultipliers(c, FORMS);
    // In place needs each half product's image under the reduction to be independent, which a
    // field's reduction gives and a random one may not (then only the gathered form is written).
    assert.ok(rewritten.length >= (field ? FORMS.length : 1), `seed ${seed}: ${rewritten.length} forms`);
    for (const k of rewritten) {
      const err = equivalenceError(c, k, { ignoreGlobalPhase: false });
      assert.ok(err < 1e-9, `seed ${seed}: error ${err}`);
      assert.ok(counts(k).byName.ccz! < n * n, 'fewer products than the schoolbook');
    }
  }
});

test('wider random multipliers are rewritten to the same map (phase-affine proof, up to 48 qubits)', () => {
  for (const [n, seed] of [[7, 11], [9, 12], [12, 13], [16, 14]] as const) {
    const c = schoolbook(n, seed, { reversedB: seed % 2 === 0, field: FIELD[n] });
    const rewritten = karatsubaMultipliers(c, FORMS);
    assert.equal(rewritten.length, FORMS.length);
    for (const k of rewritten) {
      const proof = checkPhaseAffine(c, k, { ignoreGlobalPhase: false });
      assert.equal(proof.verdict, 'equivalent', `n = ${n}: ${proof.reason}`);
    }
  }
});

test('a map that is not a polynomial product, or whose factors change, is left alone', () => {
  const c = schoolbook(4, 21);
  assert.ok(karatsubaMultipliers(c, FORMS).length > 0);
  // a_0 b_1 missing from coefficient 1 (a_1 b_0 still there): no longer a Hankel form.
  const first = c.ops.findIndex((op) => op.kind === 'gate' && op.name === 'ccz' && op.qubits[0] === 0 && op.qubits[1] === 5);
  const missing = { ...c, ops: c.ops.filter((_, i) => i < first - 1 || i > first + 1) };
  assert.equal(karatsubaMultipliers(missing, FORMS).length, 0);
  // A factor wire that ends changed (a_0 += a_1 at the end).
  assert.equal(karatsubaMultipliers({ ...c, ops: [...c.ops, g('cx', [1, 0])] }, FORMS).length, 0);
  // A product of three wires (degree 3) and a rotation are not read at all.
  assert.equal(readClassicalMap({ ...c, ops: [g('ccx', [0, 4, 8]), g('ccx', [8, 1, 9])] }), null);
  assert.equal(readClassicalMap({ ...c, ops: [...c.ops, { kind: 'gate', name: 'rz', qubits: [0], params: [0.1] }] }), null);
});

test('level 3 writes gf2^4_mult with Karatsuba products where that costs nothing in either count, and proves it', () => {
  const basisGates = ['cx', 'h', 'rz', 'x'];
  for (const name of ['gf2^4_mult', 'gf2^8_mult']) {
    const c = nam(name);
    const gateLevel = counts(optimize(c, { level: 3, basisGates, multipliers: false }).circuit);
    const r = optimize(c, { level: 3, basisGates });
    const k = counts(r.circuit);
    // Never worse than the gate-level result in gates or in two-qubit gates.
    assert.ok(k.gates <= gateLevel.gates && k.twoQubit <= gateLevel.twoQubit, `${name}: ${k.gates}/${k.twoQubit} against ${gateLevel.gates}/${gateLevel.twoQubit}`);
    assert.ok(equivalenceError(c, r.circuit) < 1e-7);
    if (name === 'gf2^4_mult') {
      // 9 products for 16: 162 gates, 91 CX (gate level 171, 93).
      assert.ok(k.gates < gateLevel.gates, `${k.gates} gates`);
      const proof = checkPhaseAffine(c, r.circuit, { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping });
      assert.equal(proof.verdict, 'equivalent', proof.reason);
    }
  }
});
