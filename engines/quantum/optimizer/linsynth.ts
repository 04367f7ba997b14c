/**
 * CX synthesis of linear reversible maps over GF(2) (the fix-up after a parity network, which
 * is often as large as the network itself). Several reductions of the map to the identity are
 * tried and the shortest kept: Gaussian elimination (lower then upper triangle) and a greedy
 * reduction (each step the row addition that lowers the summed row weight most, finished by
 * elimination), each on the map, its transpose (column operations) and its inverse.
 */
import { flip, get, unit, weight, xorInto, type Vec } from './gf2.ts';

/** Rows of a GF(2) matrix (row r = vector); returns its inverse, or null when singular. */
export function invert(rows: Vec[], m: number, words: number): Vec[] | null {
  const a = rows.map((r) => r.slice());
  const inv = Array.from({ length: m }, (_, i) => unit(words, i));
  for (let c = 0; c < m; c++) {
    let p = c;
    while (p < m && !get(a[p], c)) p++;
    if (p === m) return null;
    [a[p], a[c]] = [a[c], a[p]];
    [inv[p], inv[c]] = [inv[c], inv[p]];
    for (let r = 0; r < m; r++) {
      if (r !== c && get(a[r], c)) {
        xorInto(a[r], a[c]);
        xorInto(inv[r], inv[c]);
      }
    }
  }
  return inv;
}

/** product rows: (A B)_r = XOR of B rows selected by A_r */
export function multiply(a: Vec[], b: Vec[], m: number, words: number): Vec[] {
  return a.map((row) => {
    const out = new Uint32Array(words);
    for (let k = 0; k < m; k++) if (get(row, k)) xorInto(out, b[k]);
    return out;
  });
}

function transposeRows(rows: Vec[], m: number, words: number): Vec[] {
  const out = Array.from({ length: m }, () => new Uint32Array(words));
  for (let r = 0; r < m; r++) for (let c = 0; c < m; c++) if (get(rows[r], c)) flip(out[c], r);
  return out;
}

/**
 * Row additions (row t ^= row c) that reduce `a` (modified in place) to the identity, using
 * additions only (a missing pivot is filled by adding a lower row, never by swapping).
 */
function gauss(a: Vec[], m: number, ops: Array<[number, number]>): void {
  const add = (c: number, t: number): void => {
    xorInto(a[t], a[c]);
    ops.push([c, t]);
  };
  // Lower triangle first, then upper (each column's pivot fixed before it is used).
  for (let c = 0; c < m; c++) {
    if (!get(a[c], c)) {
      let p = c + 1;
      while (p < m && !get(a[p], c)) p++;
      if (p === m) throw new Error('singular linear map in a phase region');
      add(p, c);
    }
    for (let r = c + 1; r < m; r++) if (get(a[r], c)) add(c, r);
  }
  for (let c = m - 1; c >= 0; c--) for (let r = 0; r < c; r++) if (get(a[r], c)) add(c, r);
}

/** Greedy weight-lowering row additions while any helps, then elimination. */
function greedy(a: Vec[], m: number, words: number, ops: Array<[number, number]>): void {
  const w = a.map(weight);
  const tmp = new Uint32Array(words);
  for (let guard = 0; guard < 4 * m * m; guard++) {
    let bc = -1;
    let bt = -1;
    let gain = 0;
    for (let t = 0; t < m; t++) {
      if (w[t] === 1) continue;
      for (let c = 0; c < m; c++) {
        if (c === t) continue;
        for (let k = 0; k < words; k++) tmp[k] = a[t][k] ^ a[c][k];
        const g = w[t] - weight(tmp);
        if (g > gain) {
          gain = g;
          bc = c;
          bt = t;
        }
      }
    }
    if (bc < 0) break;
    xorInto(a[bt], a[bc]);
    w[bt] -= gain;
    ops.push([bc, bt]);
  }
  // Rows of weight one that sit on the wrong wire still need elimination (a permutation).
  gauss(a, m, ops);
}

/** Largest map given the cubic greedy search. */
const GREEDY_MAX = 48;

/**
 * CX gates (control, target), in circuit order, that turn wires holding `from` into `to`.
 * Quick (`thorough` false): elimination by rows or by columns only.
 */
export function linearSynth(from: Vec[], to: Vec[], m: number, words: number, thorough = true): Array<[number, number]> {
  const inv = invert(from, m, words);
  if (!inv) throw new Error('singular linear map in a phase region');
  const c = multiply(to, inv, m, words); // wires must get C: to = C from
  if (!thorough) {
    const rows: Array<[number, number]> = [];
    gauss(c.map((r) => r.slice()), m, rows);
    const cols: Array<[number, number]> = [];
    gauss(transposeRows(c, m, words), m, cols);
    return cols.length < rows.length ? cols.map(([a, b]): [number, number] => [b, a]) : rows.reverse();
  }
  const cInv = invert(c, m, words) as Vec[];
  let best: Array<[number, number]> | null = null;
  const keep = (ops: Array<[number, number]>): void => {
    if (!best || ops.length < best.length) best = ops;
  };
  const reducers: Array<(a: Vec[], ops: Array<[number, number]>) => void> = [(a, ops) => gauss(a, m, ops)];
  if (m <= GREEDY_MAX) reducers.push((a, ops) => greedy(a, m, words, ops));
  for (const reduce of reducers) {
    // Reducing C to I: C is the product of the additions in reverse, so they run reversed.
    let ops: Array<[number, number]> = [];
    reduce(c.map((r) => r.slice()), ops);
    keep(ops.reverse());
    // Reducing C^-1 to I: the additions multiply to C in order.
    ops = [];
    reduce(cInv.map((r) => r.slice()), ops);
    keep(ops);
    // Column operations: reducing C^T by rows is reducing C by columns, control and target exchanged.
    ops = [];
    reduce(transposeRows(c, m, words), ops);
    keep(ops.map(([a, b]): [number, number] => [b, a]));
    ops = [];
    reduce(transposeRows(cInv, m, words), ops);
    keep(ops.reverse().map(([a, b]): [number, number] => [b, a]));
  }
  return best as unknown as Array<[number, number]>;
}
