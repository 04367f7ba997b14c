// CX networks between Hadamards (hnetwork.ts): exact, reversed without their H, and left alone where that would add H.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Circuit } from '../circuit.ts';
import { mulberry32 } from '../sampling.ts';
import { equivalenceError } from './equivalence.ts';
import { flipHadamardNetworks } from './hnetwork.ts';
import { counts, optimize } from './index.ts';
import type { Ir } from './ir.ts';
import { unroll } from './unroll.ts';
import { circ, nam, type Spec, written } from './testkit.ts';

const hCount = (ir: Ir): number => ir.ops.filter((o) => o.k === 'u').length;

/** Random circuits of H layers around CX networks, with rotations, lone H and CX between them. */
function networks(n: number, blocks: number, seed: number): Circuit {
  const rand = mulberry32(seed);
  const pick = (k: number): number => Math.floor(rand() * k);
  const ops: Spec = [];
  for (let b = 0; b < blocks; b++) {
    const r = rand();
    if (r < 0.35) {
      const wires = [...Array(n).keys()].filter(() => rand() < 0.7);
      if (wires.length < 2) continue;
      for (const q of wires) if (rand() < 0.8) ops.push(['h', [q]]);
      for (let k = 0; k < 1 + pick(5); k++) {
        const c = wires[pick(wires.length)]!;
        const t = wires[pick(wires.length)]!;
        if (c !== t) ops.push(['cx', [c, t]]);
      }
      for (const q of wires) if (rand() < 0.8) ops.push(['h', [q]]);
    } else if (r < 0.55) ops.push(['h', [pick(n)]]);
    else if (r < 0.8) ops.push(['rz', [pick(n)], [rand() * 6 - 3]]);
    else {
      const q = pick(n);
      ops.push(['cx', [q, (q + 1 + pick(n - 1)) % n]]);
    }
  }
  return circ(n, ops);
}

test('reversing CX networks between Hadamards keeps random circuits equal, phase included, with fewer H', () => {
  let rewritten = 0;
  for (let seed = 1; seed <= 80; seed++) {
    const c = networks(2 + (seed % 5), 30, 7300 + seed);
    const ir = unroll(c);
    const before = hCount(ir);
    const k = flipHadamardNetworks(ir);
    rewritten += k;
    const err = equivalenceError(c, written(ir));
    assert.ok(err < 1e-9, `seed ${seed}: error ${err}`);
    if (k) assert.ok(hCount(ir) < before, `seed ${seed}: a rewrite must drop H gates`);
  }
  assert.ok(rewritten > 40, `only ${rewritten} networks rewritten`);
});

test('a network that mixes its wires loses the H pairs around it; one that would gain H is left alone', () => {
  // h a; h b; h c; cx a,b; cx b,c; cx c,a; h a; h b; h c  =  cx b,a; cx c,b; cx a,c.
  const c = circ(3, [['h', [0]], ['h', [1]], ['h', [2]], ['cx', [0, 1]], ['cx', [1, 2]], ['cx', [2, 0]], ['h', [0]], ['h', [1]], ['h', [2]]]);
  const ir = unroll(c);
  assert.equal(flipHadamardNetworks(ir), 1);
  assert.deepEqual(ir.ops.map((o) => (o.k === 'cx' ? `cx ${o.c},${o.t}` : o.k)), ['cx 1,0', 'cx 2,1', 'cx 0,2']);
  assert.ok(equivalenceError(c, written(ir)) < 1e-9);
  // One wire with H on one side only keeps its count (an H moves to its other side); the rest drop.
  const partial = circ(3, [['h', [0]], ['h', [1]], ['cx', [0, 1]], ['cx', [1, 2]], ['h', [0]], ['h', [1]], ['h', [2]]]);
  const pir = unroll(partial);
  assert.equal(flipHadamardNetworks(pir), 1);
  assert.equal(hCount(pir), 1);
  assert.ok(equivalenceError(partial, written(pir)) < 1e-9);
  // H on one side of one wire only: rewriting would add H.
  const plain = circ(2, [['h', [0]], ['cx', [0, 1]]]);
  assert.equal(flipHadamardNetworks(unroll(plain)), 0);
});

test('a block that gates outside it run between is left alone', () => {
  // cx 0,1 and cx 1,2 form one block (they follow each other on wire 1), but wire 0 runs on
  // from cx 0,1 through rz, cx 0,2 and rz into wire 2 before cx 1,2: rewritten in one piece,
  // the block would move cx 1,2 ahead of what it waits for.
  const c = circ(3, [['h', [0]], ['h', [1]], ['h', [2]], ['cx', [0, 1]], ['rz', [0], [0.3]], ['cx', [0, 2]], ['rz', [2], [0.7]], ['cx', [1, 2]], ['h', [0]], ['h', [1]], ['h', [2]]]);
  const ir = unroll(c);
  assert.equal(flipHadamardNetworks(ir), 0);
  assert.ok(equivalenceError(c, written(ir)) < 1e-9);
});

test('level 3 gives gf2^8_mult one H pair per output wire (its reduction network mixes them)', () => {
  const c = nam('gf2^8_mult');
  const out = optimize(c, { level: 3, basisGates: ['cx', 'h', 'rz', 'x'], multipliers: false }).circuit;
  const h = out.ops.filter((o) => o.kind === 'gate' && o.name === 'h').length;
  assert.equal(h, 16, 'two H on each of the 8 output wires');
  assert.ok(counts(out).gates <= 643);
  assert.ok(equivalenceError(c, out) < 1e-7);
});
