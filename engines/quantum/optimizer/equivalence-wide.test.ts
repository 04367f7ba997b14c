import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit } from '../circuit.ts';
import { randomLayeredCircuit } from '../circuits.ts';
import { equivalenceError, maxCheckQubits } from './equivalence.ts';
import { wideCheckAvailable, wideStateError } from './equivalence-wide.ts';
import { optimize } from './index.ts';

const skip = wideCheckAvailable() ? false : 'the native kernels are not built on this machine';
const BASIS = ['cx', 'rz', 'sx', 'x'];
const identity = (n: number): number[] => [...Array(n).keys()];

function dropOne(c: Circuit, at: number): Circuit {
  const ops = [...c.ops];
  ops.splice(at, 1);
  return { ...c, ops };
}

test('a 20-qubit optimized circuit is checked on the native kernels, and a dropped gate is caught', { skip }, () => {
  assert.ok(maxCheckQubits() >= 20);
  const c = randomLayeredCircuit(20, 4, 12);
  const r = optimize(c, { level: 3, basisGates: BASIS });
  const opts = { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping, ignoreGlobalPhase: true };
  assert.ok(equivalenceError(c, r.circuit, opts) < 1e-9);
  const broken = dropOne(r.circuit, r.circuit.ops.findIndex((o) => o.kind === 'gate' && o.name === 'cx'));
  assert.ok(equivalenceError(c, broken, opts) > 1e-3);
});

test('the wide check agrees with the JavaScript check on a routed circuit with ancillas', { skip }, () => {
  const c = randomLayeredCircuit(6, 5, 4);
  // A line of 8 qubits: routing adds swaps and leaves two ancillas.
  const line: Array<[number, number]> = identity(7).map((q) => [q, q + 1]);
  const r = optimize(c, { level: 3, basisGates: BASIS, couplingMap: line });
  const n = c.numQubits;
  const init = identity(n).map((l) => r.initialLayout[l] ?? l);
  const fin = identity(n).map((l) => r.qubitMapping[l] ?? l);
  const wide = wideStateError(c, { ...r.circuit, numQubits: 8 }, init, fin, 1, true);
  const js = equivalenceError(c, r.circuit, { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping, ignoreGlobalPhase: true });
  assert.ok(wide < 1e-9 && js < 1e-9, `wide ${wide}, js ${js}`);
  // A wrong final mapping (two logical qubits exchanged) fails both.
  const swapped = [...fin];
  [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
  assert.ok(wideStateError(c, { ...r.circuit, numQubits: 8 }, init, swapped, 1, true) > 1e-3);
});
