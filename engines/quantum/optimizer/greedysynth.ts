/**
 * A greedy parity network for phase polynomials (in the spirit of the greedy CNOT-phase
 * synthesis of Vandaele, Martiel and Perdrix, 2022): every term is written in the basis of
 * what the wires currently hold, and each step applies the CX that lowers the summed weight
 * of the unplaced terms the most (a term of weight one is rotated on its wire at once). Where
 * no CX lowers the sum, the lightest term is reduced by one CX between two of its wires. The
 * Gray-code recursion (phasepoly.ts) splits on one wire at a time and cannot share a CX
 * between terms on different branches; this network often can, and the caller keeps
 * whichever needs fewer CX.
 */
import { get, unit, xorInto, type Vec } from './gf2.ts';
import type { LocalOp, PhasePoly } from './phasepoly-types.ts';

/**
 * Largest region worth it: each step scores every wire pair over every term, so the work
 * grows as wires^2 x terms x steps; the regions that gain are the small ones.
 */
const MAX_WIRES = 16;
const MAX_TERMS = 64;

export function greedySynth(p: PhasePoly): { ops: LocalOp[]; wires: Vec[] } | null {
  const { m, words } = p;
  if (m > MAX_WIRES || p.terms.length > MAX_TERMS) return null;
  const ops: LocalOp[] = [];
  const wires = Array.from({ length: m }, (_, i) => unit(words, i));
  // cur[t][i]: term t holds current wire i.
  const cur = p.terms.map((t) => {
    const row = new Uint8Array(m);
    for (let i = 0; i < m; i++) row[i] = get(t.v, i);
    return row;
  });
  const wt = cur.map((r) => r.reduce((a, b) => a + b, 0));
  const alive = new Uint8Array(cur.length).fill(1);
  let left = cur.length;
  const place = (t: number): void => {
    if (!alive[t] || wt[t] !== 1) return;
    ops.push({ rz: [cur[t].indexOf(1), p.terms[t].angle] });
    alive[t] = 0;
    left--;
  };
  for (let t = 0; t < cur.length; t++) place(t);
  const cx = (j: number, i: number): void => {
    ops.push({ cx: [j, i] });
    xorInto(wires[i], wires[j]);
    for (let t = 0; t < cur.length; t++) {
      if (!alive[t] || !cur[t][i]) continue;
      wt[t] += cur[t][j] ? -1 : 1;
      cur[t][j] ^= 1;
      place(t);
    }
  };
  const N = new Int32Array(m);
  const C = new Int32Array(m * m);
  // Closeness to the output: how many wires already hold their output parity is a tie-break.
  const helps = (j: number, i: number): number => {
    let before = 0;
    let after = 0;
    for (let k = 0; k < words; k++) {
      before += popcount(wires[i][k] ^ p.out[i][k]);
      after += popcount(wires[i][k] ^ wires[j][k] ^ p.out[i][k]);
    }
    return before - after;
  };
  let guard = 0;
  while (left > 0) {
    if (++guard > 64 * MAX_TERMS) return null;
    N.fill(0);
    C.fill(0);
    const bits: number[] = [];
    for (let t = 0; t < cur.length; t++) {
      if (!alive[t]) continue;
      bits.length = 0;
      for (let i = 0; i < m; i++) if (cur[t][i]) bits.push(i);
      for (const i of bits) {
        N[i]++;
        for (const j of bits) if (j !== i) C[i * m + j]++;
      }
    }
    let bi = -1;
    let bj = -1;
    let bd = 0;
    let bh = -Infinity;
    for (let i = 0; i < m; i++) {
      if (!N[i]) continue;
      for (let j = 0; j < m; j++) {
        if (j === i || !C[i * m + j]) continue;
        const d = N[i] - 2 * C[i * m + j];
        if (d > bd) continue;
        if (d < bd || bi < 0) {
          bd = d;
          bi = i;
          bj = j;
          bh = d < 0 ? helps(j, i) : -Infinity;
          continue;
        }
        if (d < 0) {
          const h = helps(j, i);
          if (h > bh) {
            bh = h;
            bi = i;
            bj = j;
          }
        }
      }
    }
    if (bi >= 0 && bd < 0) {
      cx(bj, bi);
      continue;
    }
    // No CX lowers the sum: reduce the lightest term on its cheapest pair.
    let lt = -1;
    for (let t = 0; t < cur.length; t++) if (alive[t] && (lt < 0 || wt[t] < wt[lt])) lt = t;
    const held: number[] = [];
    for (let i = 0; i < m; i++) if (cur[lt][i]) held.push(i);
    let pi = held[0];
    let pj = held[1];
    let pd = Infinity;
    for (const i of held) for (const j of held) {
      if (i === j) continue;
      const d = N[i] - 2 * C[i * m + j];
      if (d < pd) {
        pd = d;
        pi = i;
        pj = j;
      }
    }
    cx(pj, pi);
  }
  return { ops, wires };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
