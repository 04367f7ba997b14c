import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { optimize } from '../optimizer/index.ts';
import { parseQasm } from '../qasm/index.ts';
import { checkEquivalence } from './equivalence.ts';

const NAM = fileURLToPath(new URL('../../../fixtures/nam/', import.meta.url));

// gf2^16_mult (48 qubits) is left to path sums (pathsum.test.ts): with its a_i + b_j rotations
// relocated to the end, the diagram of the product doubles with every wire of the multiplier.
// The multipliers' products are taken as written here: Karatsuba's (level 3's default) outgrow
// the diagrams' budget from gf2^9 on, and phase-affine.test.ts proves them.
for (const [name, width] of [['csum_mux_9', 30], ['qcla_adder_10', 36], ['gf2^10_mult', 30]] as const) {
  test(`${name} (${width} qubits) optimized at level 3 is proven equivalent, and not once a gate is removed`, () => {
    const c = parseQasm(readFileSync(`${NAM}${name}.qasm`, 'utf8'));
    assert.equal(c.numQubits, width);
    const r = optimize(c, { level: 3, basisGates: ['cx', 'h', 'rz', 'x'], multipliers: false });
    const layout = { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping };
    const ok = checkEquivalence(c, r.circuit, layout);
    assert.equal(ok.verdict, 'equivalent', ok.reason);
    assert.ok((ok.deviation ?? 1) < 1e-9);
    // Drop an rz from the middle and a CX near the start (neither is ever the identity here).
    // The check runs from the last gate back, so an error near the end spreads through every
    // earlier Toffoli and only costs more time.
    const at = (name: string): number[] => r.circuit.ops.flatMap((op, i) => (op.kind === 'gate' && op.name === name ? [i] : []));
    const rz = at('rz');
    const cx = at('cx');
    for (const drop of [rz[Math.floor(rz.length / 2)], cx[Math.floor(cx.length * 0.1)]]) {
      const broken = { ...r.circuit, ops: r.circuit.ops.filter((_, i) => i !== drop) };
      const bad = checkEquivalence(c, broken, layout);
      assert.equal(bad.verdict, 'not_equivalent', bad.reason);
      assert.ok((bad.deviation ?? 0) > 0.1);
    }
  });
}
