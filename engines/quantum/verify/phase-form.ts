/** Whether a phase function of pi/4 multiples is constant: shared by the path-sum and phase-affine checks. */

/** A parity as bits over 32-bit words (bit i: variable i). */
export type ParityBits = Uint32Array;

/**
 * Whether a phase function sum_t k_t [p_t(x)] (k_t mod 8, in units of pi/4; p_t parities of
 * the variables) is constant on {0,1}^n. It is exactly when its unique multilinear form over
 * Z_8 vanishes ([x_S] = sum over nonempty T in S of (-2)^{|T|-1} x_T): the coefficient of x_i
 * is the sum of k_t over the terms holding i (mod 8), of x_i x_j minus twice that over the
 * terms holding both (so the sum mod 4), of x_i x_j x_l four times that over the terms holding
 * all three (so the count of odd k_t mod 2), and nothing of higher degree survives mod 8. Those
 * sums are read from per-variable bit columns over the terms (an AND of two or three columns
 * and a count), never by expanding a parity of m variables into its m^3 / 6 monomials: the
 * cost is about n^3 / 6 times the terms / 32 word operations at most (gf2^64's proof: 192
 * variables, 33,000 terms, 3 s).
 */
export function isConstantPhaseForm(terms: Array<{ p: ParityBits; k: number }>, variables: number): boolean {
  const count = terms.length;
  const words = Math.max(1, Math.ceil(count / 32));
  const column = Array.from({ length: variables }, () => new Uint32Array(words));
  const odd = new Uint32Array(words);
  const two = new Uint32Array(words);
  terms.forEach((t, i) => {
    const bit = 1 << (i & 31);
    const w = i >>> 5;
    for (let v = 0; v < variables; v++) if ((t.p[v >>> 5]! >>> (v & 31)) & 1) column[v]![w] |= bit;
    if (t.k & 1) odd[w] |= bit;
    if (t.k & 2) two[w] |= bit;
  });
  const popcount = (x: number): number => {
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  };
  const used = [...Array(variables).keys()].filter((v) => column[v]!.some((x) => x !== 0));
  for (const i of used) {
    let sum = 0;
    terms.forEach((t, j) => {
      if ((column[i]![j >>> 5]! >>> (j & 31)) & 1) sum += t.k;
    });
    if (sum % 8 !== 0) return false;
  }
  const pair = new Uint32Array(words);
  for (let x = 0; x < used.length; x++) {
    const ci = column[used[x]!]!;
    for (let y = x + 1; y < used.length; y++) {
      const cj = column[used[y]!]!;
      let any = 0;
      let ones = 0;
      let twos = 0;
      for (let w = 0; w < words; w++) {
        const both = ci[w]! & cj[w]!;
        pair[w] = both & odd[w]!;
        any |= both;
        ones += popcount(both & odd[w]!);
        twos += popcount(both & two[w]!);
      }
      if (!any) continue;
      // sum k over the terms holding both, mod 4: bit 0 of each k counts once, bit 1 twice.
      if ((ones + 2 * twos) % 4 !== 0) return false;
      for (let z = y + 1; z < used.length; z++) {
        const cl = column[used[z]!]!;
        let acc = 0;
        for (let w = 0; w < words; w++) acc ^= pair[w]! & cl[w]!;
        if (popcount(acc) & 1) return false;
      }
    }
  }
  return true;
}

