/** Seeded random numbers and shot sampling: the same seed gives the same shots, bit for bit. */

/**
 * Mulberry32: a tiny seeded generator of doubles in [0, 1), for reproducible checks and
 * training runs (the shot sampler uses the stronger `Rng` below).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** xoshiro128** seeded through splitmix32; `next()` returns a double in [0, 1). */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0 ^ Math.floor(seed / 2 ** 32) >>> 0;
    const mix = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix();
  }

  nextU32(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return r;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  next(): number {
    return ((this.nextU32() >>> 5) * 67108864 + (this.nextU32() >>> 6)) / 9007199254740992;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** A seed for runs that were given none. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 32);
}

/** Probabilities |amp|^2 of a statevector. */
export function probabilities(st: Float64Array): Float64Array {
  const p = new Float64Array(st.length >> 1);
  for (let i = 0; i < p.length; i++) p[i] = st[2 * i]! * st[2 * i]! + st[2 * i + 1]! * st[2 * i + 1]!;
  return p;
}

/** Draw `shots` indices from a (not necessarily normalised) distribution by inverse CDF. */
export function sampleIndices(p: Float64Array, shots: number, rng: Rng): Uint32Array {
  const cdf = new Float64Array(p.length);
  let acc = 0;
  for (let i = 0; i < p.length; i++) {
    acc += p[i]!;
    cdf[i] = acc;
  }
  const out = new Uint32Array(shots);
  for (let s = 0; s < shots; s++) {
    const u = rng.next() * acc;
    let lo = 0;
    let hi = p.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    out[s] = lo;
  }
  return out;
}

/**
 * Draw `shots` basis-state indices from the |amplitude|^2 of a statevector without building a
 * probability array (a 30-qubit state leaves no room for one): sorted uniforms come from
 * normalised sums of exponential spacings, one pass over the state assigns them, and a
 * Fisher-Yates shuffle puts the shots in random order.
 */
export function sampleFromState(st: Float64Array, shots: number, rng: Rng): Uint32Array {
  const out = new Uint32Array(shots);
  if (shots === 0) return out;
  const { u, total } = sortedUniforms(shots, rng);
  sweepState(st, u, total, out);
  shuffleInPlace(out, rng);
  return out;
}

/**
 * Sorted uniforms for a one-sweep sampler: cumulative exponential spacings, divided by `total`
 * when compared (shots + 1 draws). Shared with the native sampler, which must draw the same.
 */
export function sortedUniforms(shots: number, rng: Rng): { u: Float64Array; total: number } {
  const u = new Float64Array(shots);
  let acc = 0;
  for (let s = 0; s < shots; s++) {
    acc += -Math.log(1 - rng.next());
    u[s] = acc;
  }
  return { u, total: acc - Math.log(1 - rng.next()) };
}

/** One pass over the state: shot s lands on the first basis state whose cumulative probability exceeds u[s]/total. */
export function sweepState(st: Float64Array, u: Float64Array, total: number, out: Uint32Array): void {
  const shots = out.length;
  let norm = 0;
  for (let i = 0; i < st.length; i++) norm += st[i]! * st[i]!;
  let s = 0;
  let cum = 0;
  const dim = st.length >> 1;
  let last = 0;
  for (let i = 0; i < dim && s < shots; i++) {
    const p = st[2 * i]! * st[2 * i]! + st[2 * i + 1]! * st[2 * i + 1]!;
    if (p === 0) continue;
    last = i;
    cum += p / norm;
    while (s < shots && u[s]! / total < cum) out[s++] = i;
  }
  // Rounding can leave the last uniforms just above the final cumulative sum.
  while (s < shots) out[s++] = last;
}

/** Fisher-Yates: sweeps and trajectories yield shots grouped; shots are reported in random order. */
export function shuffleInPlace<T>(out: { [i: number]: T; length: number }, rng: Rng): void {
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
}

/** A counts key: every classical bit, the highest-numbered first (CONTRACT). */
export function bitKey(bits: Uint8Array | number[]): string {
  let s = '';
  for (let i = bits.length - 1; i >= 0; i--) s += bits[i] ? '1' : '0';
  return s;
}

/** Tally shot keys into counts. */
export function tally(keys: string[]): Record<string, number> {
  const m: Record<string, number> = {};
  for (const k of keys) m[k] = (m[k] ?? 0) + 1;
  return m;
}

/**
 * A fast maker of `width`-bit keys (highest bit first) for values below 2^width (width <= 30):
 * concatenations of precomputed 10-bit strings, which costs far less than toString + padStart
 * when a million shots give half a million distinct outcomes.
 */
export function keyMaker(width: number): (v: number) => string {
  const chunks = Math.max(1, Math.ceil(width / 10));
  const topWidth = width - 10 * (chunks - 1);
  const table = (w: number): string[] => Array.from({ length: 2 ** w }, (_, i) => (w ? i.toString(2).padStart(w, '0') : ''));
  const top = table(topWidth);
  const ten = table(10);
  if (chunks === 1) return (v) => top[v]!;
  if (chunks === 2) return (v) => top[v >>> 10]! + ten[v & 1023]!;
  return (v) => top[v >>> 20]! + ten[(v >>> 10) & 1023]! + ten[v & 1023]!;
}
