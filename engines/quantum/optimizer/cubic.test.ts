import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit, GateOp } from '../circuit.ts';
import { emit, parseBasis } from './basis.ts';
import { productForms } from './cubic.ts';
import { equivalenceError } from './equivalence.ts';
import { get, unit } from './gf2.ts';
import { resynthesizePhaseRegions } from './phasepoly.ts';
import type { PhasePoly } from './phasepoly-types.ts';
import { rng } from './sim.ts';
import { unroll } from './unroll.ts';

const T = Math.PI / 4;

/** The phase a polynomial's rotations give input x (rz(a) on parity p is e^{i a (p - 1/2)}). */
function phaseAt(p: PhasePoly, x: number): number {
  let f = p.phase;
  for (const t of p.terms) {
    let parity = 0;
    for (let i = 0; i < p.m; i++) if ((x >> i) & 1 && get(t.v, i)) parity ^= 1;
    f += t.angle * (parity - 0.5);
  }
  return f;
}

const same = (a: number, b: number): boolean => Math.abs(Math.sin((a - b) / 2)) < 1e-9;

/** The seven rotations of CCZ(a, b, c) on local wires, as polynomial terms. */
function ccz(a: number, b: number, c: number): Array<{ v: Uint32Array; angle: number }> {
  const bit = (...qs: number[]): Uint32Array => Uint32Array.of(qs.reduce((s, q) => s | (1 << q), 0));
  return [
    { v: bit(a), angle: T }, { v: bit(b), angle: T }, { v: bit(c), angle: T },
    { v: bit(a, b), angle: -T }, { v: bit(a, c), angle: -T }, { v: bit(b, c), angle: -T }, { v: bit(a, b, c), angle: T },
  ];
}

function poly(m: number, terms: Array<{ v: Uint32Array; angle: number }>): PhasePoly {
  const sums = new Map<number, number>();
  for (const t of terms) sums.set(t.v[0], (sums.get(t.v[0]) ?? 0) + t.angle);
  return {
    m,
    words: 1,
    terms: [...sums].filter(([, a]) => Math.abs(Math.sin(a / 2)) > 1e-12).map(([v, angle]) => ({ v: Uint32Array.of(v), angle })),
    out: Array.from({ length: m }, (_, i) => unit(1, i)),
    outConst: new Uint8Array(m),
    phase: 0.3,
  };
}

test('two CCZ sharing two wires become one product on a parity, the same function of every input', () => {
  const p = poly(4, [...ccz(0, 1, 2), ...ccz(0, 1, 3)]);
  const forms = productForms(p);
  assert.ok(forms.length > 0);
  const odd = (q: PhasePoly): number => q.terms.filter((t) => Math.abs(Math.round(t.angle / T)) % 2 === 1).length;
  assert.ok(forms.some((f) => odd(f) <= 7), 'one CCZ on wires 0, 1 and 2 + 3: seven T-type rotations');
  for (const f of forms) for (let x = 0; x < 16; x++) assert.ok(same(phaseAt(f, x), phaseAt(p, x)), `input ${x}`);
});

test('random Clifford+T polynomials keep their function in every product form', () => {
  const r = rng(7);
  for (let s = 0; s < 12; s++) {
    const m = 4 + (s % 3);
    const terms: Array<{ v: Uint32Array; angle: number }> = [];
    for (let k = 0; k < 5; k++) {
      const q = [...Array(m).keys()].sort(() => r() - 0.5);
      terms.push(...ccz(q[0], q[1], q[2]));
    }
    for (let k = 0; k < 4; k++) terms.push({ v: Uint32Array.of(1 + Math.floor(r() * ((1 << m) - 1))), angle: T * Math.floor(r() * 8) });
    const p = poly(m, terms);
    for (const f of productForms(p)) for (let x = 0; x < 1 << m; x++) assert.ok(same(phaseAt(f, x), phaseAt(p, x)), `seed ${s}, input ${x}`);
  }
});

test('a polynomial with an angle that is not a multiple of pi/4 has no product form', () => {
  assert.deepEqual(productForms(poly(3, [...ccz(0, 1, 2), { v: Uint32Array.of(1), angle: 0.1 }])), []);
});

test('region resynthesis with product forms keeps Toffoli-pair circuits equal', () => {
  const circ = (n: number, ops: Array<[string, number[]]>): Circuit => ({
    numQubits: n, numClbits: 0, qregs: [{ name: 'q', size: n, offset: 0 }], cregs: [], globalPhase: 0,
    ops: ops.map(([name, qubits]) => ({ kind: 'gate', name, qubits, params: [] }) as GateOp),
  });
  const c = circ(5, [['ccz', [0, 1, 2]], ['cx', [3, 4]], ['ccz', [0, 1, 3]], ['t', [4]], ['ccz', [0, 2, 4]], ['cx', [2, 0]], ['ccz', [1, 2, 3]]]);
  const ir = unroll(c);
  resynthesizePhaseRegions(ir);
  const out = emit(ir, parseBasis(['u3', 'cx']), { fuse: false, cregs: [], numClbits: 0 });
  assert.ok(equivalenceError(c, out) < 1e-9);
});
