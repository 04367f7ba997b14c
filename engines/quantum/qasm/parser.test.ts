import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { QasmError, parseQasm, simulateStatevector, toQasm } from '../index.ts';

const fixtures = (d: string): string => fileURLToPath(new URL(`../../../fixtures/${d}/`, import.meta.url));

for (const d of ['qasmbench', 'nam']) {
  test(`every ${d} fixture parses and re-parses from its OpenQASM 2 and 3 output`, () => {
    const dir = fixtures(d);
    const files = readdirSync(dir).filter((f) => f.endsWith('.qasm'));
    assert.ok(files.length > 20);
    for (const f of files) {
      const c = parseQasm(readFileSync(dir + f, 'utf8'));
      assert.ok(c.numQubits > 0, f);
      for (const v of [2, 3] as const) assert.equal(parseQasm(toQasm(c, v)).ops.length, c.ops.length, `${f} v${v}`);
    }
  });
}

test('nam circuits keep ccz as a standard gate', () => {
  const c = parseQasm(readFileSync(fixtures('nam') + 'barenco_tof_3.qasm', 'utf8'));
  assert.ok(c.ops.some((o) => o.kind === 'gate' && o.name === 'ccz') || c.ops.every((o) => o.kind !== 'gate' || o.name !== 'ccx'));
});

test('user gates are inlined down to standard gates, with parameters substituted', () => {
  const c = parseQasm('OPENQASM 2.0; include "qelib1.inc"; gate g(a) x, y { rz(a/2) x; cx x, y; } qreg q[2]; g(pi) q[1], q[0];');
  assert.deepEqual(c.ops.map((o) => (o.kind === 'gate' ? [o.name, o.qubits, o.params] : o.kind)), [
    ['rz', [1], [Math.PI / 2]],
    ['cx', [1, 0], []],
  ]);
});

test('OpenQASM 2 if(creg==n) becomes a condition on the register bits', () => {
  const c = parseQasm('OPENQASM 2.0; include "qelib1.inc"; qreg q[1]; creg a[1]; creg b[2]; if(b==2) x q[0];');
  const op = c.ops[0]!;
  assert.equal(op.kind, 'gate');
  assert.deepEqual(op.kind === 'gate' ? op.condition : undefined, { clbits: [1, 2], value: 2 });
});

test('OpenQASM 3 modifiers, loops, consts, inputs and if/else elaborate', () => {
  const c = parseQasm(
    `OPENQASM 3.0; include "stdgates.inc"; const int n = 3; input float theta; qubit[n] q; bit[n] c;
     for int i in [0:n-2] { ctrl @ rx(theta * 2) q[i], q[i+1]; }
     negctrl @ x q[0], q[2]; inv @ s q[0]; pow(2) @ t q[1];
     c[0] = measure q[0]; if (c[0] == 1) { x q[1]; } else { z q[1]; } measure q -> c;`,
    { inputs: { theta: 0.25 } },
  );
  const gates = c.ops.filter((o) => o.kind === 'gate');
  assert.equal(gates.filter((o) => o.kind === 'gate' && o.name === 'rx' && o.controls === 1 && o.params[0] === 0.5).length, 2);
  assert.ok(gates.some((o) => o.kind === 'gate' && o.name === 'sdg'));
  assert.equal(gates.filter((o) => o.kind === 'gate' && o.name === 't').length, 2);
  const xs = c.ops.filter((o) => o.kind === 'gate' && o.name === 'x' && o.condition);
  assert.deepEqual(xs.map((o) => (o.kind === 'gate' ? o.condition : undefined)), [{ clbits: [0], value: 1 }]);
  assert.ok(c.ops.some((o) => o.kind === 'gate' && o.name === 'z' && o.condition?.value === 0));
});

test('errors name the line, the column and what was expected', () => {
  assert.throws(() => parseQasm('OPENQASM 2.0;\nqreg q[2];\nh q[0]\n'), (e: unknown) => e instanceof QasmError && e.line === 4 && /expected ';'/.test(e.message));
  assert.throws(() => parseQasm('OPENQASM 2.0;\nqreg q[2];\nfoo q[0];'), (e: unknown) => e instanceof QasmError && e.line === 3 && e.column === 1 && /unknown gate 'foo'/.test(e.message));
  assert.throws(() => parseQasm('OPENQASM 3;\nqubit q;\nwhile (true) { x q; }'), /line 3, column 1: while loops are not supported/);
  assert.throws(() => parseQasm('OPENQASM 3;\ndef f() {}'), /subroutine definitions/);
  assert.throws(() => parseQasm('OPENQASM 3; input float t; qubit q; rx(t) q;'), /input 't' needs a value/);
  assert.throws(() => parseQasm('OPENQASM 2.0; qreg q[2]; h q[2];'), /out of range/);
});

test('opaque gates parse and are rejected when simulated', () => {
  const c = parseQasm('OPENQASM 2.0; opaque magic(a) x; qreg q[1]; magic(1) q[0];');
  assert.throws(() => simulateStatevector(c), /opaque/);
});

test('gphase and ctrl @ gphase give the right phases', () => {
  const c = parseQasm('OPENQASM 3; qubit[1] q; x q[0]; gphase(pi/2);');
  const sv = simulateStatevector(c);
  assert.ok(Math.abs(sv[3]! - 1) < 1e-12 && Math.abs(sv[2]!) < 1e-12);
  const d = parseQasm('OPENQASM 3; qubit[1] q; x q[0]; ctrl @ gphase(pi) q[0];');
  assert.ok(Math.abs(simulateStatevector(d)[2]! + 1) < 1e-12);
});

test('toQasm keeps angles exact through a round trip', () => {
  const c = parseQasm('OPENQASM 3; qubit[3] q; rz(0.1234567890123) q[0]; cp(3*pi/4) q[0], q[1]; ctrl(2) @ ry(0.3) q[0], q[1], q[2];');
  const back = parseQasm(toQasm(c, 3));
  assert.deepEqual(back.ops, c.ops);
});

test('modifiers give the right matrices: negctrl, pow(1/2), inv of a user gate', () => {
  const amp = (src: string, i: number): [number, number] => {
    const sv = simulateStatevector(parseQasm(src));
    return [sv[2 * i]!, sv[2 * i + 1]!];
  };
  // negctrl flips the target when the control is 0.
  assert.deepEqual(amp('OPENQASM 3; qubit[2] q; negctrl @ x q[0], q[1];', 2).map((x) => Math.round(x * 1e12) / 1e12), [1, 0]);
  // pow(1/2) @ x is sx: from |0>, amplitudes (1+i)/2 and (1-i)/2.
  const [re, im] = amp('OPENQASM 3; include "stdgates.inc"; qubit q; pow(0.5) @ x q;', 1);
  assert.ok(Math.abs(re - 0.5) < 1e-12 && Math.abs(im + 0.5) < 1e-12);
  // inv @ g undoes g.
  const back = amp('OPENQASM 3; include "stdgates.inc"; gate g(a) x, y { h x; crz(a) x, y; t y; } qubit[2] q; x q[1]; g(0.7) q[0], q[1]; inv @ g(0.7) q[0], q[1];', 2);
  assert.ok(Math.abs(back[0] - 1) < 1e-12 && Math.abs(back[1]) < 1e-12);
});

test('for loops with a step and register conditions with else expand to conditioned gates', () => {
  const c = parseQasm('OPENQASM 3; include "stdgates.inc"; qubit[6] q; bit[2] c; for uint i in [0:2:5] { x q[i]; } if (c == 2) { h q[1]; } else { z q[1]; }');
  const xs = c.ops.filter((o) => o.kind === 'gate' && o.name === 'x').map((o) => (o.kind === 'gate' ? o.qubits[0] : -1));
  assert.deepEqual(xs, [0, 2, 4]);
  const hz = c.ops.filter((o) => o.kind === 'gate' && (o.name === 'h' || o.name === 'z'));
  assert.deepEqual(hz.map((o) => (o.kind === 'gate' ? [o.name, o.condition?.value] : [])), [['h', 2], ['z', 0], ['z', 1], ['z', 3]]);
});

test('gates and registers may be named like built-in object properties', () => {
  const c = parseQasm('OPENQASM 3; include "stdgates.inc"; gate toString a { x a; } gate constructor a { h a; } qubit[1] q; toString q[0]; constructor q[0];');
  assert.equal(c.ops.length, 2);
  assert.throws(() => parseQasm('OPENQASM 3; qubit[1] q; while (true) { }'), /while loops are not supported/);
});
