import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQasm } from '../index.ts';
import { counts } from '../optimizer/metrics.ts';
import { circuitSvg, circuitText, formatParam, layoutCircuit } from './index.ts';

const BELL = 'OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; creg c[2]; h q[0]; cx q[0],q[1]; measure q -> c;';

/** A seeded 30-qubit circuit of 300 gates: one- and two-qubit gates, a barrier, measurements. */
function bigCircuit(): string {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const one = ['h', 'x', 't', 'sdg', 'sx'];
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', 'qreg q[30];', 'creg c[30];'];
  for (let i = 0; i < 300; i++) {
    const a = Math.floor(rnd() * 30);
    let b = Math.floor(rnd() * 30);
    if (b === a) b = (a + 1) % 30;
    const r = rnd();
    if (r < 0.5) lines.push(`${one[i % one.length]} q[${a}];`);
    else if (r < 0.6) lines.push(`rz(${(rnd() * 6).toFixed(3)}) q[${a}];`);
    else if (r < 0.9) lines.push(`cx q[${a}],q[${b}];`);
    else lines.push(`cz q[${a}],q[${b}];`);
    if (i === 150) lines.push('barrier q;');
  }
  lines.push('measure q -> c;');
  return lines.join('\n');
}

const countOf = (svg: string, re: RegExp) => (svg.match(re) ?? []).length;

test('the text diagram of a Bell circuit', () => {
  assert.equal(
    circuitText(parseQasm(BELL)),
    [
      'q[0]: ───[H]────■────[M]──────────',
      '                │     ║',
      'q[1]: ──────────⊕─────╫─────[M]───',
      '                      ║      ║',
      ' c: 2/════════════════╩══════╩════',
      '                      0      1',
      '',
    ].join('\n'),
  );
});

test('the SVG of a 30-qubit, 300-gate circuit has one mark per gate, control, target, measurement and barrier', () => {
  const c = parseQasm(bigCircuit());
  const n = counts(c);
  assert.equal(n.gates, 300);
  const svg = circuitSvg(c, { caption: 'before optimization' });
  assert.equal(countOf(svg, /<g class="op gate"/g), 300);
  assert.equal(countOf(svg, /<g class="op measure"/g), 30);
  assert.equal(countOf(svg, /<g class="op barrier"/g), 1);
  for (const [name, k] of Object.entries(n.byName)) assert.equal(countOf(svg, new RegExp(`<g class="op gate" data-name="${name}"`, 'g')), k, name);
  // cx: a control dot and a ⊕ target; cz: two dots.
  const cx = n.byName.cx ?? 0;
  const cz = n.byName.cz ?? 0;
  assert.equal(countOf(svg, /<circle [^>]*r="5"/g), cx + 2 * cz);
  assert.equal(countOf(svg, /<circle [^>]*r="11"/g), cx);
  assert.match(svg, /^<svg [^>]*data-qubits="30" data-gates="300" data-depth="\d+"/);
  assert.match(svg, />before optimization</);
  // Natural size (a page scrolls it sideways): 30 wires of 40 px, and far wider than tall.
  const [, w, h] = svg.match(/width="(\d+)" height="(\d+)"/)!.map(Number);
  assert.ok(h! >= 30 * 40 && w! > h!, `${w} x ${h}`);
  assert.equal(countOf(svg, /<g[ >]/g), countOf(svg, /<\/g>/g));
  // Nothing a strict CSP would block when the SVG is inlined in a page.
  assert.doesNotMatch(svg, /style=|<style|<script|href=/);
});

test('gates on separate wires share a column; a measurement blocks the wires below it; a condition waits for measurements', () => {
  const c = parseQasm('OPENQASM 2.0; include "qelib1.inc"; qreg q[3]; creg c[3]; h q[0]; h q[1]; h q[2]; measure q[1] -> c[1]; x q[2]; if(c==2) x q[0];');
  const l = layoutCircuit(c);
  assert.deepEqual(l.placed.map((p) => p.column), [0, 0, 0, 1, 2, 2]);
  assert.equal(l.placed[5]!.condition, 'if c==2');
  const svg = circuitSvg(c);
  assert.match(svg, />if c==2</);
  assert.match(circuitText(c), /\[X if c==2\]/);
});

test('controls, swaps, resets, unitary boxes and parameters are drawn in the usual notation', () => {
  const c = parseQasm('OPENQASM 3; include "stdgates.inc"; qubit[4] q; bit[4] c; ccx q[0], q[1], q[3]; swap q[0], q[2]; reset q[1]; rzz(pi/2) q[0], q[3]; ctrl @ rz(-3*pi/4) q[2], q[1]; barrier q[0], q[1];');
  const text = circuitText(c);
  assert.match(text, /q\[0\]: ─+■─+×/);
  assert.match(text, /q\[3\]: ─+⊕/);
  assert.match(text, /\[\|0⟩\]/);
  assert.match(text, /\[rzz\(π\/2\)\]/);
  assert.match(text, /\[rz\(-3π\/4\)\]/);
  assert.match(text, /░/);
  const svg = circuitSvg(c);
  assert.equal(countOf(svg, /<g class="op gate"/g), 4);
  assert.equal(countOf(svg, /<g class="op reset"/g), 1);
  assert.match(svg, /<title>ccx q\[0\], q\[1\], q\[3\]<\/title>/);
  assert.equal(formatParam(Math.PI), 'π');
  assert.equal(formatParam(-Math.PI / 2), '-π/2');
  assert.equal(formatParam(0.123456), '0.123');
});
