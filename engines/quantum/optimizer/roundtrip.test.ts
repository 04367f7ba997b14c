import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toQasm } from '../qasm/emit.ts';
import { parseQasm } from '../qasm/index.ts';
import { equivalenceError } from './equivalence.ts';
import { optimize } from './index.ts';
import { randomCircuit } from './testkit.ts';

const BASES = [['u3', 'cx'], ['cx', 'rz', 'sx', 'x'], ['cz', 'rz', 'sx', 'x'], ['rxx', 'rz', 'ry']];

test('optimized circuits printed as OpenQASM 3 parse back to the same operation, global phase included', () => {
  let seed = 3000;
  for (const basis of BASES) {
    for (let trial = 0; trial < 4; trial++) {
      const c = randomCircuit(4, 30, seed++, { controlRate: 0.05 });
      const r = optimize(c, { level: 3, basisGates: basis, couplingMap: [[0, 1], [1, 2], [2, 3], [3, 4]] });
      const back = parseQasm(toQasm(r.circuit, 3));
      const err = equivalenceError(c, back, { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping });
      assert.ok(err < 1e-8, `basis ${basis} seed ${seed - 1}: error ${err}`);
    }
  }
});

test('optimized circuits printed as OpenQASM 2 parse back to the same operation up to global phase', () => {
  let seed = 4000;
  for (const basis of BASES) {
    for (let trial = 0; trial < 4; trial++) {
      const c = randomCircuit(3, 30, seed++);
      const r = optimize(c, { level: 2, basisGates: basis });
      const back = parseQasm(toQasm(r.circuit, 2));
      const err = equivalenceError(c, back, { ignoreGlobalPhase: true });
      assert.ok(err < 1e-8, `basis ${basis} seed ${seed - 1}: error ${err}`);
    }
  }
});
