/**
 * The native statevector kernels (C++, built at install by build.mjs), or null when they are
 * not built or are switched off with LATTICE_NATIVE=0; callers then use the JavaScript kernels.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** An n-qubit state: a Float64Array (complex128) or Float32Array (complex64) up to 28 qubits, an opaque native handle above. */
export type NativeState = Float64Array | Float32Array | object;

export interface NativeStatevector {
  /** |0...0> of 29 to 34 qubits in native memory; complex64 when `single`. */
  allocState(n: number, single?: boolean): object;
  /** Return a native state's memory now (later use throws). */
  freeState(state: object): void;
  /** `fromZero`: the state is |0...0> (chunks that must still be zero are skipped). */
  run(state: NativeState, n: number, ints: Int32Array, reals: Float64Array, threads: number, fromZero?: boolean): void;
  sample(state: NativeState, n: number, uniforms: Float64Array, total: number, out: Uint32Array): void;
  marginal(state: NativeState, n: number, qubits: Int32Array, out: Float64Array): void;
  hardwareThreads(): number;
  /** Bytes of a core's L2 cache, 0 when the system does not say. */
  cacheBytes(): number;
}

/** The largest state JavaScript can see as one Float64Array (4 GiB). */
export const MAX_VIEW_QUBITS = 28;

let loaded: NativeStatevector | null | undefined;

export function nativeStatevector(): NativeStatevector | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.env.LATTICE_NATIVE === '0') return loaded;
  const file = fileURLToPath(new URL('./build/Release/lattice_statevector.node', import.meta.url));
  if (!existsSync(file)) return loaded;
  const missing = missingCpuFeatures(fileURLToPath(new URL('./build/Release/cpu-flags.json', import.meta.url)));
  if (missing.length > 0) {
    process.emitWarning(`the native statevector kernels were built for a CPU with ${missing.join(', ')}, which this one lacks; using the JavaScript kernels (run npm rebuild to build them here)`);
    return loaded;
  }
  try {
    loaded = createRequire(import.meta.url)(file) as NativeStatevector;
  } catch {
    loaded = null;
  }
  return loaded;
}

/**
 * Instruction-set extensions the kernels were compiled for (recorded by build.mjs) that this
 * CPU does not have. Loading such a binary would end the process on an illegal instruction.
 */
export function missingCpuFeatures(recordFile: string, cpuinfo = '/proc/cpuinfo'): string[] {
  if (!existsSync(recordFile) || !existsSync(cpuinfo)) return [];
  try {
    const built = JSON.parse(readFileSync(recordFile, 'utf8')) as { arch?: string; flags?: string[] };
    if (built.arch && built.arch !== process.arch) return [`arch ${built.arch}`];
    const line = readFileSync(cpuinfo, 'utf8').split('\n').find((l) => /^flags\s*:/.test(l));
    if (!line) return [];
    const here = new Set(line.split(':')[1]!.trim().split(/\s+/));
    return (built.flags ?? []).filter((f) => !here.has(f));
  } catch {
    return [];
  }
}
