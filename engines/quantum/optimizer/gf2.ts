/** GF(2) vectors as 32-bit words: the parities of the phase-polynomial passes. */
export type Vec = Uint32Array;
export const get = (v: Vec, i: number): number => (v[i >>> 5] >>> (i & 31)) & 1;
export const flip = (v: Vec, i: number): void => void (v[i >>> 5] ^= 1 << (i & 31));
export const xorInto = (a: Vec, b: Vec): void => {
  for (let k = 0; k < a.length; k++) a[k] ^= b[k];
};
export function unit(words: number, i: number): Vec {
  const v = new Uint32Array(words);
  flip(v, i);
  return v;
}
export function weight(v: Vec): number {
  let w = 0;
  for (let k = 0; k < v.length; k++) {
    let x = v[k];
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    w += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return w;
}

