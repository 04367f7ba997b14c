import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gateInverse, gateMatrix, parseQasm, run, simulateStatevector, standardGateNames, gateInfo } from '../index.ts';
import { adjoint, equalUpToPhase, identity, matmul } from '../matrix.ts';
import { opMatrix } from '../qasm/modifiers.ts';

const close = (a: number, b: number, tol = 1e-10): void => assert.ok(Math.abs(a - b) < tol, `${a} != ${b}`);

test('every table gate is unitary and its inverse undoes it', () => {
  for (const name of standardGateNames()) {
    const info = gateInfo(name)!;
    const params = Array.from({ length: info.numParams }, (_, i) => 0.3 + 0.7 * i);
    const m = gateMatrix(name, params);
    assert.ok(equalUpToPhase(matmul(adjoint(m), m), identity(2 ** info.numQubits)), name);
    const inv = gateInverse(name, params);
    if (inv) assert.ok(equalUpToPhase(matmul(gateMatrix(inv.name, inv.params), m), identity(2 ** info.numQubits)), `${name} inverse`);
  }
});

test('qelib1 decompositions of c3x and c3sqrtx match the table matrices', () => {
  const c3x = parseQasm('OPENQASM 3; qubit[4] q; gate my a,b,c,d { h d; cu1(-pi/4) a,d; h d; cx a,b; h d; cu1(pi/4) b,d; h d; cx a,b; h d; cu1(-pi/4) b,d; h d; cx b,c; h d; cu1(pi/4) c,d; h d; cx a,c; h d; cu1(-pi/4) c,d; h d; cx b,c; h d; cu1(pi/4) c,d; h d; cx a,c; h d; cu1(-pi/4) c,d; h d; } my q[0],q[1],q[2],q[3];');
  let u = identity(16);
  for (const op of c3x.ops) if (op.kind === 'gate') u = matmul(embedOp(opMatrix(op), op.qubits, 4), u);
  assert.ok(equalUpToPhase(u, gateMatrix('c3x', [])));
});

function embedOp(m: Float64Array, qubits: number[], k: number): Float64Array {
  // Build the full matrix by simulating basis states.
  const dim = 2 ** k;
  const out = new Float64Array(2 * dim * dim);
  for (let col = 0; col < dim; col++) {
    const c = { numQubits: k, numClbits: 0, qregs: [], cregs: [], globalPhase: 0, ops: [] as never[] };
    const prep = Array.from({ length: k }, (_, q) => ((col >> q) & 1 ? [{ kind: 'gate', name: 'x', qubits: [q], params: [] }] : [])).flat();
    const sv = simulateStatevector({ ...c, ops: [...prep, { kind: 'unitary', label: 'm', qubits, matrix: m }] as never[] });
    for (let r = 0; r < dim; r++) {
      out[2 * (r * dim + col)] = sv[2 * r]!;
      out[2 * (r * dim + col) + 1] = sv[2 * r + 1]!;
    }
  }
  return out;
}

test('Bell and GHZ states have exactly the expected amplitudes', () => {
  const sv = simulateStatevector(parseQasm('OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; h q[0]; cx q[0],q[1];'));
  close(sv[0]!, Math.SQRT1_2);
  close(sv[6]!, Math.SQRT1_2);
  close(sv[2]!, 0);
  const n = 12;
  let src = `OPENQASM 3; qubit[${n}] q; h q[0];`;
  for (let i = 0; i + 1 < n; i++) src += `cx q[${i}], q[${i + 1}];`;
  const g = simulateStatevector(parseQasm(src));
  close(g[0]!, Math.SQRT1_2);
  close(g[2 * (2 ** n - 1)]!, Math.SQRT1_2);
});

function qft(n: number, input: number): string {
  let s = `OPENQASM 3; include "stdgates.inc"; qubit[${n}] q;`;
  for (let q = 0; q < n; q++) if ((input >> q) & 1) s += `x q[${q}];`;
  for (let j = n - 1; j >= 0; j--) {
    s += `h q[${j}];`;
    for (let k = j - 1; k >= 0; k--) s += `cp(pi/${2 ** (j - k)}) q[${k}], q[${j}];`;
  }
  for (let q = 0; q < n / 2; q++) s += `swap q[${q}], q[${n - 1 - q}];`;
  return s;
}

test('QFT of a basis state |x> gives amplitudes e^{2πi x k / N} / sqrt(N)', () => {
  const n = 6;
  const N = 2 ** n;
  for (const x of [0, 1, 5, 42]) {
    const sv = simulateStatevector(parseQasm(qft(n, x)));
    for (let k = 0; k < N; k++) {
      close(sv[2 * k]!, Math.cos((2 * Math.PI * x * k) / N) / Math.sqrt(N), 1e-9);
      close(sv[2 * k + 1]!, Math.sin((2 * Math.PI * x * k) / N) / Math.sqrt(N), 1e-9);
    }
  }
});

test('Grover search on 3 qubits finds the marked item with probability above 0.94', () => {
  // Marked item |101>, two iterations.
  let s = 'OPENQASM 3; include "stdgates.inc"; qubit[3] q; bit[3] c; h q;';
  const oracle = 'x q[1]; h q[2]; ccx q[0], q[1], q[2]; h q[2]; x q[1];';
  const diffuse = 'h q; x q; h q[2]; ccx q[0], q[1], q[2]; h q[2]; x q; h q;';
  for (let i = 0; i < 2; i++) s += oracle + diffuse;
  const sv = simulateStatevector(parseQasm(s));
  const p = sv[10]! ** 2 + sv[11]! ** 2;
  close(p, 0.9453125, 1e-9);
  const r = run(parseQasm(s + 'c = measure q;'), { shots: 2000, seed: 11 });
  assert.ok(r.counts['101']! > 1800);
});

test('the same seed gives the same shots bit for bit, and another seed differs', () => {
  const c = parseQasm('OPENQASM 3; qubit[4] q; bit[4] c; h q; c = measure q;');
  const a = run(c, { shots: 500, seed: 42, memory: true });
  const b = run(c, { shots: 500, seed: 42, memory: true });
  const d = run(c, { shots: 500, seed: 43, memory: true });
  assert.deepEqual(a.memory, b.memory);
  assert.notDeepEqual(a.memory, d.memory);
  assert.equal(a.memory!.length, 500);
});

test('teleportation with conditionals reproduces the input qubit statistics', () => {
  const src = `OPENQASM 2.0; include "qelib1.inc"; qreg q[3]; creg a[1]; creg b[1]; creg o[1];
    ry(1.1) q[0]; h q[1]; cx q[1],q[2]; cx q[0],q[1]; h q[0]; measure q[0] -> a[0]; measure q[1] -> b[0];
    if(b==1) x q[2]; if(a==1) z q[2]; measure q[2] -> o[0];`;
  const r = run(parseQasm(src), { shots: 20000, seed: 5 });
  let ones = 0;
  for (const [k, v] of Object.entries(r.counts)) if (k[0] === '1') ones += v;
  close(ones / 20000, Math.sin(0.55) ** 2, 0.015);
  // All four (a, b) outcomes occur: the branches were really sampled.
  const ab = new Set(Object.keys(r.counts).map((k) => k.slice(1)));
  assert.equal(ab.size, 4);
});

test('reset returns a qubit to |0> mid-circuit', () => {
  const r = run(parseQasm('OPENQASM 2.0; include "qelib1.inc"; qreg q[1]; creg c[2]; h q[0]; measure q[0] -> c[0]; reset q[0]; measure q[0] -> c[1];'), { shots: 400, seed: 2 });
  for (const k of Object.keys(r.counts)) assert.equal(k[0], '0');
  assert.equal(Object.keys(r.counts).length, 2);
});

test('10^5 shots from a 12-qubit state sample the right distribution', () => {
  const c = parseQasm('OPENQASM 3; qubit[12] q; bit[12] c; ry(pi/3) q; c = measure q;');
  const r = run(c, { shots: 100000, seed: 9 });
  const p0 = Math.cos(Math.PI / 6) ** 2;
  close((r.counts['000000000000'] ?? 0) / 100000, p0 ** 12, 0.01);
});
