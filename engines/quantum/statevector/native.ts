/**
 * The unitary part of a circuit on the native kernels, when they are built: plans the passes,
 * runs them on a state in native memory, and samples from it. A state of up to 28 qubits is
 * also visible as a Float64Array; above that (JavaScript arrays stop at 4 GiB) the state is
 * only sampled and summarised natively.
 */
import { availableParallelism } from 'node:os';
import type { Operation } from '../circuit.ts';
import { MAX_VIEW_QUBITS, nativeStatevector, type NativeState } from '../native/index.ts';
import { type Rng, shuffleInPlace, sortedUniforms } from '../sampling.ts';
import { DEFAULT_LOCAL_QUBITS, LOW_LOCAL_QUBITS_SINGLE, planNative } from './native-plan.ts';
import { checkStatevectorSize, type Precision } from './state.ts';

export type { Precision } from './state.ts';

/** Below this size the JavaScript kernels are as fast, and they stay in everyday use. */
export const NATIVE_MIN_QUBITS = 10;

export interface NativeRun {
  n: number;
  state: NativeState;
  /** The amplitudes (interleaved re/im), when the state is small enough for JavaScript. */
  view: Float64Array | Float32Array | null;
  passes: number;
  precision: Precision;
}

export function simulationThreads(): number {
  const env = Number(process.env.LATTICE_SIM_THREADS);
  if (Number.isInteger(env) && env >= 1) return env;
  return Math.max(1, Math.min(64, availableParallelism()));
}

export interface NativeOptions {
  /** Use the native kernels whatever the size (tests compare them with the JavaScript ones). */
  force?: boolean;
  /** Active qubits per pass (tests use small values to exercise many passes). */
  localQubits?: number;
  /** 'single': complex64 amplitudes (a Float32Array view). Default 'double'. */
  precision?: Precision;
}

/** Runs unitary ops from |0...0> natively; null when the kernels are not built or not suited. */
export function runNative(ops: Operation[], n: number, o: NativeOptions = {}): NativeRun | null {
  const native = nativeStatevector();
  if (!native || (!o.force && n < NATIVE_MIN_QUBITS)) return null;
  const precision = o.precision ?? 'double';
  const single = precision === 'single';
  const program = planNative(ops, n, o.localQubits ?? localQubitsFor(precision), single ? LOW_LOCAL_QUBITS_SINGLE : undefined);
  if (!program) return null;
  checkStatevectorSize(n, 1, precision);
  let view: Float64Array | Float32Array | null = null;
  if (n <= MAX_VIEW_QUBITS) {
    view = single ? new Float32Array(2 * 2 ** n) : new Float64Array(2 * 2 ** n);
    view[0] = 1;
  }
  const state = view ?? native.allocState(n, single);
  try {
    native.run(state, n, program.ints, program.reals, simulationThreads(), true);
  } catch (err) {
    if (!view) native.freeState(state);
    throw err;
  }
  return { n, state, view, passes: program.passes, precision };
}

/**
 * Active qubits per pass: the chunk (2^a amplitudes, split re/im) fills half a core's L2 cache,
 * leaving the rest to the state's lines streaming through: 2^15 complex128 or 2^16 complex64
 * amplitudes in a 1 MiB L2.
 */
export function localQubitsFor(precision: Precision): number {
  const l2 = nativeStatevector()?.cacheBytes() || 2 ** DEFAULT_LOCAL_QUBITS * 32;
  const bytesPerAmplitude = precision === 'single' ? 8 : 16;
  return Math.max(10, Math.min(20, Math.floor(Math.log2(l2 / 2 / bytesPerAmplitude))));
}

/** The amplitudes of a run as complex128 (a complex64 view is widened, exactly). */
export function viewAsDouble(r: NativeRun): Float64Array | null {
  if (!r.view) return null;
  return r.view instanceof Float64Array ? r.view : Float64Array.from(r.view);
}

/** Returns the memory of a state held natively (above 28 qubits) once it is no longer needed. */
export function releaseNative(r: NativeRun): void {
  if (!r.view) nativeStatevector()!.freeState(r.state);
}

/** Same draws and result as sampleFromState on the same state, with the sweep done natively. */
export function sampleNative(r: NativeRun, shots: number, rng: Rng): Uint32Array {
  const out = new Uint32Array(shots);
  if (shots === 0) return out;
  const { u, total } = sortedUniforms(shots, rng);
  nativeStatevector()!.sample(r.state, r.n, u, total, out);
  shuffleInPlace(out, rng);
  return out;
}

/** Probabilities of the outcomes of `qubits` (bit j of the index = qubits[j]). */
export function marginalNative(r: NativeRun, qubits: number[]): Float64Array {
  const out = new Float64Array(2 ** qubits.length);
  nativeStatevector()!.marginal(r.state, r.n, Int32Array.from(qubits), out);
  return out;
}
