/** One entry point to run a circuit with shots on any of the three simulators, with or without noise. */
import type { Backend } from './backends.ts';
import type { Circuit } from './circuit.ts';
import { diagonalOf } from './density/channels.ts';
import { checkDensitySize, densityMatrix, runBranchesDM } from './density/simulate.ts';
import { runMps } from './mps/run.ts';
import type { NoiseModel } from './noise.ts';
import { isNoiseModel, noiseFromBackend } from './noise.ts';
import { Rng, bitKey, randomSeed, sampleIndices, tally } from './sampling.ts';
import { outcomeKey, sampleShots } from './statevector/shots.ts';
import { splitTerminal } from './statevector/simulate.ts';
import { marginalNative, releaseNative, viewAsDouble, type NativeRun } from './statevector/native.ts';
import { MAX_VIEW_QUBITS } from './native/index.ts';
import { applyGlobalPhase, checkStatevectorSize, type Precision, statevectorBytes } from './statevector/state.ts';

export type { Precision } from './statevector/state.ts';

export type Method = 'statevector' | 'density_matrix' | 'mps';

export interface RunOptions {
  method?: Method;
  shots?: number;
  /** Same seed, same shots, bit for bit. A random seed is drawn when absent (and reported). */
  seed?: number;
  /** Return each shot's bit string. */
  memory?: boolean;
  /** Return the final statevector (statevector method, when it is the same for every shot). */
  statevector?: boolean;
  /** A backend with calibration, or a noise model. */
  noise?: Backend | NoiseModel;
  /**
   * Also return the exact probability of each outcome (density_matrix, and statevector without
   * noise or mid-circuit measurement), for at most 20 classical bits.
   */
  probabilities?: boolean;
  /** MPS bond-dimension cap (default 256). */
  maxBond?: number;
  /**
   * Statevector amplitudes: 'double' (complex128, default) or 'single' (complex64, as qsim:
   * half the memory and about twice as fast on large states; amplitudes agree with double to
   * about 1e-6 at 20 qubits and depth 20, see engines/quantum/README.md). Applies to the
   * statevector method when every measurement is terminal and there is no noise.
   */
  precision?: Precision;
}

export interface RunResult {
  method: Method;
  numQubits: number;
  shots: number;
  seed: number;
  counts: Record<string, number>;
  memory?: string[];
  statevector?: Float64Array;
  probabilities?: Record<string, number>;
  /** MPS only: the summed discarded weight of every truncation. */
  truncationError?: number;
  maxBondReached?: number;
  /** Memory the simulation state needed, checked before the run started. */
  memoryBytes: number;
  executionTimeMs: number;
}

/** Bytes the state of `method` needs for n qubits (MPS: its initial size; it grows with entanglement). */
export function memoryRequiredBytes(method: Method, n: number, precision: Precision = 'double'): number {
  if (method === 'statevector') return statevectorBytes(n, precision);
  if (method === 'density_matrix') return 16 * 4 ** n;
  return 32 * n;
}

export function toNoiseModel(noise: Backend | NoiseModel | undefined): NoiseModel | undefined {
  if (!noise) return undefined;
  return isNoiseModel(noise) ? noise : noiseFromBackend(noise);
}

function checkOpts(c: Circuit, shots: number): void {
  if (!Number.isInteger(shots) || shots < 0) throw new Error(`shots must be a non-negative integer, got ${shots}`);
  if (shots > 10_000_000) throw new Error(`at most 10000000 shots, got ${shots}`);
}

/**
 * Run `circuit` and sample shots.
 *
 * @example
 * run(parseQasm(bellWithMeasure), { shots: 1000, seed: 7 }).counts // { '00': 503, '11': 497 }
 */
export function run(circuit: Circuit, opts: RunOptions = {}): RunResult {
  const t0 = performance.now();
  const method = opts.method ?? 'statevector';
  const shots = opts.shots ?? 1024;
  checkOpts(circuit, shots);
  const precision = opts.precision ?? 'double';
  if (precision !== 'double' && precision !== 'single') throw new Error(`unknown precision '${precision as string}' (expected double or single)`);
  const memoryBytes = memoryRequiredBytes(method, circuit.numQubits, precision);
  if (method === 'statevector') checkStatevectorSize(circuit.numQubits, 1, precision);
  if (method === 'statevector' && opts.statevector && circuit.numQubits > MAX_VIEW_QUBITS) {
    // Said before the run, not after minutes of simulation.
    throw new Error(`a statevector of ${circuit.numQubits} qubits is too large to return (at most ${MAX_VIEW_QUBITS}); ask for counts or probabilities`);
  }
  if (method === 'density_matrix') checkDensitySize(circuit.numQubits, splitTerminal(circuit) === null);
  const seed = opts.seed ?? randomSeed();
  const rng = new Rng(seed);
  const noise = toNoiseModel(opts.noise);
  let counts: Record<string, number>;
  let keys: string[] | undefined;
  let statevector: Float64Array | undefined;
  let probs: Record<string, number> | undefined;
  const wantProbs = opts.probabilities === true && circuit.numClbits <= 20;
  let truncationError: number | undefined;
  let maxBondReached: number | undefined;
  if (method === 'statevector') {
    const r = sampleShots(circuit, shots, rng, noise, opts.memory, precision);
    keys = r.keys;
    counts = r.counts;
    if (wantProbs && r.state && r.measures) probs = stateProbabilities(r.state, r.measures, circuit.numClbits);
    if (r.native) {
      try {
        if (wantProbs && r.measures && r.measures.length <= 20) probs = nativeProbabilities(r.native, r.measures, circuit.numClbits);
        if (opts.statevector) statevector = viewAsDouble(r.native) ?? undefined;
      } finally {
        releaseNative(r.native);
      }
    }
    if (opts.statevector && r.state) statevector = r.state;
    if (statevector) applyGlobalPhase(statevector, circuit.globalPhase);
  } else if (method === 'density_matrix') {
    const dist = densityDistribution(circuit, noise);
    keys = sampleDensity(dist, circuit.numClbits, shots, rng);
    counts = tally(keys);
    if (wantProbs) probs = distributionRecord(dist, circuit.numClbits);
  } else if (method === 'mps') {
    if (noise) throw new Error('the mps method has no noise model; use statevector (trajectories) or density_matrix');
    const r = runMps(circuit, shots, rng, opts.maxBond ?? 256);
    keys = r.keys;
    counts = tally(keys);
    truncationError = r.truncationError;
    maxBondReached = r.maxBond;
  } else throw new Error(`unknown method '${method as string}' (expected statevector, density_matrix or mps)`);
  const result: RunResult = {
    method,
    numQubits: circuit.numQubits,
    shots,
    seed,
    counts,
    memoryBytes,
    executionTimeMs: performance.now() - t0,
  };
  if (opts.memory && keys) result.memory = keys;
  if (statevector) result.statevector = statevector;
  if (probs) result.probabilities = probs;
  if (truncationError !== undefined) {
    result.truncationError = truncationError;
    result.maxBondReached = maxBondReached;
  }
  return result;
}

/** Exact distribution over classical records (index = Σ bit_b 2^b) for the density-matrix method. */
export function densityDistribution(c: Circuit, noise?: NoiseModel): Float64Array {
  if (c.numClbits > 24) throw new Error('the density_matrix method supports at most 24 classical bits');
  const dist = new Float64Array(2 ** c.numClbits);
  const split = splitTerminal(c);
  if (split) {
    const rho = densityMatrix({ ...c, ops: split.unitary }, noise);
    const p = diagonalOf(rho, c.numQubits);
    for (let i = 0; i < p.length; i++) {
      let k = 0;
      for (const m of split.measures) {
        const bit = (i >>> m.qubit) & 1;
        k = (k & ~(2 ** m.clbit)) + bit * 2 ** m.clbit;
      }
      dist[k] += Math.max(0, p[i]!);
    }
    const e = noise?.readout_error ?? 0;
    if (e > 0) {
      for (const clbit of new Set(split.measures.map((m) => m.clbit))) {
        const b = 2 ** clbit;
        for (let i = 0; i < dist.length; i++) {
          if (i & b) continue;
          const a = dist[i]!;
          const d = dist[i + b]!;
          dist[i] = (1 - e) * a + e * d;
          dist[i + b] = e * a + (1 - e) * d;
        }
      }
    }
    return dist;
  }
  for (const br of runBranchesDM(c, noise)) {
    let k = 0;
    br.bits.forEach((v, b) => {
      k += v * 2 ** b;
    });
    dist[k] += Math.max(0, diagonalOf(br.rho, c.numQubits).reduce((a, x) => a + x, 0));
  }
  return dist;
}

function distributionRecord(dist: Float64Array, numClbits: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < dist.length; i++) if (dist[i]! > 1e-15) out[i.toString(2).padStart(numClbits, '0')] = dist[i]!;
  return out;
}

function stateProbabilities(st: Float64Array, measures: Array<{ qubit: number; clbit: number }>, numClbits: number): Record<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < st.length >> 1; i++) {
    const p = st[2 * i]! * st[2 * i]! + st[2 * i + 1]! * st[2 * i + 1]!;
    if (p <= 1e-15) continue;
    const k = outcomeKey(i, measures, numClbits);
    m.set(k, (m.get(k) ?? 0) + p);
  }
  return Object.fromEntries(m);
}

/** The same record as stateProbabilities, from a state held in native memory (too large for JavaScript). */
function nativeProbabilities(r: NativeRun, measures: Array<{ qubit: number; clbit: number }>, numClbits: number): Record<string, number> {
  const p = marginalNative(r, measures.map((m) => m.qubit));
  const m = new Map<string, number>();
  for (let x = 0; x < p.length; x++) {
    if (p[x]! <= 1e-15) continue;
    let i = 0;
    for (let j = 0; j < measures.length; j++) if ((x >>> j) & 1) i |= 2 ** measures[j]!.qubit;
    const k = outcomeKey(i, measures, numClbits);
    m.set(k, (m.get(k) ?? 0) + p[x]!);
  }
  return Object.fromEntries(m);
}

function sampleDensity(dist: Float64Array, numClbits: number, shots: number, rng: Rng): string[] {
  const idx = sampleIndices(dist, shots, rng);
  const bits = new Uint8Array(numClbits);
  const keys = new Array<string>(shots);
  const cache = new Map<number, string>();
  for (let s = 0; s < shots; s++) {
    const i = idx[s]!;
    let k = cache.get(i);
    if (k === undefined) {
      for (let b = 0; b < numClbits; b++) bits[b] = Math.floor(i / 2 ** b) % 2;
      k = bitKey(bits);
      cache.set(i, k);
    }
    keys[s] = k;
  }
  return keys;
}
