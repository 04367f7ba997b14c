/** Seeded random circuits over the standard gate names, and small circuit builders, for the optimizer's tests. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Circuit, GateOp } from '../circuit.ts';
import { parseQasm } from '../qasm/index.ts';
import { emit, parseBasis } from './basis.ts';
import { u3 } from './gates1q.ts';
import type { Ir } from './ir.ts';
import { mul } from './complex.ts';
import { rng } from './sim.ts';

/** [name, qubits, params] */
export const GATES: Array<[string, number, number]> = [
  ['h', 1, 0], ['x', 1, 0], ['y', 1, 0], ['z', 1, 0], ['s', 1, 0], ['sdg', 1, 0], ['t', 1, 0], ['tdg', 1, 0],
  ['sx', 1, 0], ['sxdg', 1, 0], ['rx', 1, 1], ['ry', 1, 1], ['rz', 1, 1], ['p', 1, 1], ['u1', 1, 1], ['u2', 1, 2],
  ['u3', 1, 3], ['u', 1, 3], ['id', 1, 0], ['r', 1, 2],
  ['cx', 2, 0], ['cy', 2, 0], ['cz', 2, 0], ['ch', 2, 0], ['swap', 2, 0], ['iswap', 2, 0], ['dcx', 2, 0], ['ecr', 2, 0],
  ['cp', 2, 1], ['cu1', 2, 1], ['crx', 2, 1], ['cry', 2, 1], ['crz', 2, 1], ['cu3', 2, 3], ['cu', 2, 4], ['csx', 2, 0],
  ['rxx', 2, 1], ['ryy', 2, 1], ['rzz', 2, 1], ['rzx', 2, 1],
  ['ccx', 3, 0], ['ccz', 3, 0], ['cswap', 3, 0], ['rccx', 3, 0], ['c3x', 4, 0], ['rc3x', 4, 0],
];

export interface RandomOptions {
  /** Only these gate names (default: all of GATES). */
  names?: string[];
  /** Probability of an extra `ctrl @` control on a gate. */
  controlRate?: number;
  /** Probability of an explicit 1q or 2q unitary operation. */
  unitaryRate?: number;
  /** Rotation angles drawn from multiples of pi/4 (Clifford+T-like), else uniform. */
  discreteAngles?: boolean;
}

function randomUnitary(k: number, r: () => number): Float64Array {
  if (k === 1) return u3(r() * 7, r() * 7, r() * 7);
  // A random 4x4 unitary from a product of random 2-level rotations and phases.
  let m: Float64Array = new Float64Array(32);
  for (let i = 0; i < 4; i++) m[2 * (i * 5)] = 1;
  for (let s = 0; s < 12; s++) {
    const a = Math.floor(r() * 4);
    const b = (a + 1 + Math.floor(r() * 3)) % 4;
    const g = u3(r() * 7, r() * 7, r() * 7);
    const e = new Float64Array(32);
    for (let i = 0; i < 4; i++) if (i !== a && i !== b) e[2 * (i * 5)] = 1;
    const idx = [a, b];
    for (let x = 0; x < 2; x++) for (let y = 0; y < 2; y++) {
      e[2 * (idx[x] * 4 + idx[y])] = g[2 * (x * 2 + y)];
      e[2 * (idx[x] * 4 + idx[y]) + 1] = g[2 * (x * 2 + y) + 1];
    }
    m = mul(e, m);
  }
  return m;
}

export function randomCircuit(n: number, size: number, seed: number, o: RandomOptions = {}): Circuit {
  const r = rng(seed);
  const pool = GATES.filter(([name, k]) => k <= n && (!o.names || o.names.includes(name)));
  const ops: Circuit['ops'] = [];
  for (let i = 0; i < size; i++) {
    if (o.unitaryRate && r() < o.unitaryRate) {
      const k = n >= 2 && r() < 0.5 ? 2 : 1;
      const qs = pick(n, k, r);
      ops.push({ kind: 'unitary', label: 'u', qubits: qs, matrix: randomUnitary(k, r) });
      continue;
    }
    const [name, k, np] = pool[Math.floor(r() * pool.length)];
    const extra = o.controlRate && k < n && r() < o.controlRate ? 1 : 0;
    const qs = pick(n, k + extra, r);
    const params = Array.from({ length: np }, () => (o.discreteAngles ? (Math.floor(r() * 8) * Math.PI) / 4 : (r() - 0.5) * 8));
    const g: GateOp = { kind: 'gate', name, qubits: qs, params };
    if (extra) g.controls = extra;
    ops.push(g);
  }
  return { numQubits: n, numClbits: 0, qregs: [{ name: 'q', size: n, offset: 0 }], cregs: [], ops, globalPhase: (r() - 0.5) * 2 };
}

function pick(n: number, k: number, r: () => number): number[] {
  const qs: number[] = [];
  while (qs.length < k) {
    const q = Math.floor(r() * n);
    if (!qs.includes(q)) qs.push(q);
  }
  return qs;
}

/** Gates as [name, qubits, params?]. */
export type Spec = Array<[string, number[], number[]?]>;

/** A circuit of `n` qubits in one register `q`, of the gates listed. */
export const circ = (n: number, ops: Spec): Circuit => ({
  numQubits: n,
  numClbits: 0,
  qregs: [{ name: 'q', size: n, offset: 0 }],
  cregs: [],
  ops: ops.map(([name, qubits, params]) => ({ kind: 'gate', name, qubits, params: params ?? [] }) as GateOp),
  globalPhase: 0,
});

/** The IR written out gate by gate in {u3, cx} (no fusion), to compare with the input. */
export const written = (ir: Ir): Circuit => emit(ir, parseBasis(['u3', 'cx']), { fuse: false, cregs: [], numClbits: 0 });

/** A circuit of the Nam et al. suite (fixtures/nam). */
export const nam = (name: string): Circuit =>
  parseQasm(readFileSync(fileURLToPath(new URL(`../../../fixtures/nam/${name}.qasm`, import.meta.url)), 'utf8'));
