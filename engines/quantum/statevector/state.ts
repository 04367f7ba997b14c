/** Statevector allocation, memory checks and the unitary (measurement-free) simulation entry point. */
import { totalmem } from 'node:os';
import type { Operation } from '../circuit.ts';
import { compileOp } from './fusion.ts';
import { wantsShared } from './parallel.ts';
import { runStepAll } from './steps.ts';

/** The largest statevector this engine allocates (2^30 amplitudes = 16 GiB). */
export const MAX_STATEVECTOR_QUBITS = 30;

/**
 * Amplitude precision: 'double' (complex128, the default) or 'single' (complex64: half the
 * memory and memory traffic; each gate adds rounding of about 6e-8 relative instead of 1e-16).
 * Single precision runs on the native kernels; without them the JavaScript kernels compute in
 * double, which is at least as accurate.
 */
export type Precision = 'double' | 'single';

/** Bytes needed for a statevector of n qubits: complex128, or complex64 in single precision. */
export function statevectorBytes(n: number, precision: Precision = 'double'): number {
  return (precision === 'single' ? 8 : 16) * 2 ** n;
}

let memoryLimit: { bytes: number; at: number } | null = null;

/**
 * Memory this process may use: the cgroup limit when there is one, else the machine's memory.
 * Read at most once a minute: finding the cgroup limit reads files, and small circuits are
 * simulated thousands of times a second.
 */
export function memoryLimitBytes(): number {
  const now = Date.now();
  if (memoryLimit && now - memoryLimit.at < 60_000) return memoryLimit.bytes;
  const limit = process.constrainedMemory?.() ?? 0;
  const total = totalmem();
  memoryLimit = { bytes: limit > 0 && limit < total ? limit : total, at: now };
  return memoryLimit.bytes;
}

/** Throws a clear error, before anything is allocated, when n qubits cannot be simulated as a statevector here. */
export function checkStatevectorSize(n: number, copies = 1, precision: Precision = 'double'): void {
  if (n > MAX_STATEVECTOR_QUBITS) {
    throw new Error(`${n} qubits is too many for the statevector method (at most ${MAX_STATEVECTOR_QUBITS}; try method 'mps')`);
  }
  const need = statevectorBytes(n, precision) * copies;
  // Keep a tenth of memory for the process itself and the sampler.
  const avail = memoryLimitBytes() * 0.9;
  if (need > avail) {
    throw new Error(`the statevector of ${n} qubits needs ${(need / 2 ** 30).toFixed(2)} GiB, more than the ${(avail / 2 ** 30).toFixed(2)} GiB available`);
  }
}

/** |0...0>, in shared memory when the state is large enough for the worker pool. */
export function zeroState(n: number, shared = wantsShared(n)): Float64Array {
  checkStatevectorSize(n);
  const len = 2 * 2 ** n;
  const st = shared ? new Float64Array(new SharedArrayBuffer(8 * len)) : new Float64Array(len);
  st[0] = 1;
  return st;
}

/** Apply one unitary op (gate, unitary or barrier); measurement, reset and conditions are the caller's. */
export function applyOp(st: Float64Array, op: Operation): void {
  const step = compileOp(op);
  if (step) runStepAll(st, step);
}

export function applyGlobalPhase(st: Float64Array, phi: number): void {
  if (phi === 0) return;
  const c = Math.cos(phi);
  const s = Math.sin(phi);
  for (let i = 0; i < st.length; i += 2) {
    const re = st[i]!;
    const im = st[i + 1]!;
    st[i] = re * c - im * s;
    st[i + 1] = re * s + im * c;
  }
}
