import assert from 'node:assert/strict';
import { test } from 'node:test';
import { equivalenceError } from './equivalence.ts';
import { optimize, counts } from './index.ts';
import { randomCircuit } from './testkit.ts';
import type { Circuit } from '../circuit.ts';

const BASES = [['u3', 'cx'], ['cx', 'rz', 'sx', 'x'], ['cz', 'rz', 'sx', 'x'], ['rxx', 'rz', 'ry'], ['rzz', 'rx', 'ry'], ['cx', 'h', 'rz', 'x'], ['cp', 'u3']];

function assertEquivalent(original: Circuit, r: ReturnType<typeof optimize>, label: string): void {
  for (const seed of [1, 2]) {
    const err = equivalenceError(original, r.circuit, { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping, seed });
    assert.ok(err < 1e-8, `${label}: output differs from the input (error ${err})`);
  }
}

function assertInBasis(c: Circuit, basis: string[], label: string): void {
  for (const op of c.ops) if (op.kind === 'gate') assert.ok(basis.includes(op.name), `${label}: ${op.name} is not in {${basis}}`);
}

test('every level keeps random circuits equal to the input in every basis, global phase included', () => {
  let seed = 100;
  for (const basis of BASES) {
    for (let trial = 0; trial < 6; trial++) {
      const n = 2 + (trial % 4);
      const c = randomCircuit(n, 40, seed++, { controlRate: 0.05, unitaryRate: 0.03 });
      for (const level of [0, 1, 2, 3] as const) {
        const r = optimize(c, { level, basisGates: basis });
        const label = `basis ${basis} level ${level} seed ${seed - 1}`;
        assertInBasis(r.circuit, basis, label);
        assertEquivalent(c, r, label);
      }
    }
  }
});

test('routing on line, ring, grid and directed maps keeps the operation under the reported mapping', () => {
  const line = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]] as Array<[number, number]>;
  const ring = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 0]] as Array<[number, number]>;
  const grid = [[0, 1], [1, 2], [3, 4], [4, 5], [0, 3], [1, 4], [2, 5]] as Array<[number, number]>;
  const directed = [[1, 0], [1, 2], [3, 2], [3, 4]] as Array<[number, number]>;
  let seed = 500;
  for (const [name, map] of Object.entries({ line, ring, grid, directed })) {
    for (let trial = 0; trial < 4; trial++) {
      const n = 3 + (trial % 3);
      const c = randomCircuit(n, 30, seed++, { names: ['h', 't', 'cx', 'cz', 'swap', 'ccx', 'rzz', 'u3', 'sx'] });
      for (const level of [0, 1, 2, 3] as const) {
        for (const preserveLayout of [false, true]) {
          const basis = ['cx', 'rz', 'sx', 'x'];
          const r = optimize(c, { level, basisGates: basis, couplingMap: map, preserveLayout });
          const label = `${name} level ${level} preserve ${preserveLayout} seed ${seed - 1}`;
          const edges = new Set(map.map(([a, b]) => `${a},${b}`));
          for (const op of r.circuit.ops) {
            if (op.kind !== 'gate' || op.qubits.length < 2) continue;
            const [a, b] = op.qubits;
            const ok = name === 'directed' ? edges.has(`${a},${b}`) : edges.has(`${a},${b}`) || edges.has(`${b},${a}`);
            assert.ok(ok, `${label}: ${op.name} on uncoupled (or reversed) qubits ${a},${b}`);
          }
          if (preserveLayout) {
            for (let q = 0; q < n; q++) {
              assert.equal(r.qubitMapping[q], q, `${label}: preserve_layout moved qubit ${q}`);
              assert.equal(r.initialLayout[q], q);
            }
          }
          assertEquivalent(c, r, label);
        }
      }
    }
  }
});

test('higher levels never produce more gates than level 0 on random Clifford+T circuits', () => {
  for (let seed = 900; seed < 910; seed++) {
    const c = randomCircuit(4, 60, seed, { names: ['h', 't', 'tdg', 's', 'cx', 'ccz', 'x', 'rz'], discreteAngles: true });
    const g = [0, 1, 2, 3].map((level) => counts(optimize(c, { level: level as 0 | 1 | 2 | 3, basisGates: ['cx', 'h', 'rz', 'x'] }).circuit).gates);
    assert.ok(g[1] <= g[0] && g[2] <= g[1] && g[3] <= g[2] + 2, `gate counts by level ${g}`);
    assert.ok(g[2] < g[0], `level 2 removed nothing: ${g}`);
  }
});

test('larger circuits (12 qubits, 300 gates) keep their output state on a 4x4 grid at every level', () => {
  const grid: Array<[number, number]> = [];
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) {
    const q = r * 4 + c;
    if (c < 3) grid.push([q, q + 1]);
    if (r < 3) grid.push([q, q + 4]);
  }
  for (const seed of [7001]) {
    const c = randomCircuit(12, 300, seed, { names: ['h', 't', 'tdg', 's', 'cx', 'cz', 'ccx', 'rz', 'u3', 'swap', 'rzz', 'sx'] });
    for (const level of [0, 1, 2, 3] as const) {
      const r = optimize(c, { level, basisGates: ['cz', 'rz', 'sx', 'x'], couplingMap: grid, seed });
      assertEquivalent(c, r, `grid level ${level} seed ${seed}`);
    }
  }
});

test('routing keeps final measurements final, on the physical qubits where their logical qubits end', () => {
  // Measure early qubits first so that a router taking measurements as they come would move them mid-circuit.
  const line: Array<[number, number]> = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]];
  const c = randomCircuit(6, 60, 21);
  c.numClbits = 6;
  c.cregs = [{ name: 'c', size: 6, offset: 0 }];
  const ops = [...c.ops];
  c.ops = [{ kind: 'measure', qubit: 0, clbit: 0 }, ...ops.filter((o) => o.kind === 'gate' && !o.qubits.includes(0))];
  for (let q = 1; q < 6; q++) c.ops.push({ kind: 'measure', qubit: q, clbit: q });
  for (const level of [0, 3] as const) {
    const r = optimize(c, { level, basisGates: ['cx', 'rz', 'sx', 'x'], couplingMap: line });
    const measured = new Set<number>();
    for (const op of r.circuit.ops) {
      if (op.kind === 'measure') measured.add(op.qubit);
      else if (op.kind === 'gate') assert.ok(!op.qubits.some((q) => measured.has(q)), `level ${level}: a gate acts on a measured qubit`);
    }
    const where = new Map(r.circuit.ops.flatMap((op) => (op.kind === 'measure' ? [[op.clbit, op.qubit] as const] : [])));
    for (let l = 0; l < 6; l++) assert.equal(where.get(l), r.qubitMapping[l], `level ${level}: bit ${l} reads the qubit logical ${l} ends on`);
    assert.ok(equivalenceError(c, r.circuit, { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping }) < 1e-9);
  }
});
