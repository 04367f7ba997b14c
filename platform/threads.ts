/**
 * Where a worker thread starts. The compiled program (dist/, which `lattice` runs) starts each
 * thread from its compiled entry, dist/worker-<name>.js (scripts/build.mjs lists them). Run
 * from the TypeScript sources (tests, benchmarks, a stale build), a thread starts from its
 * bootstrap, which registers tsx in the thread first. A thread through tsx spends its first
 * second transpiling and loading, and every function the transpiled code creates is named
 * through a defineProperty call (tsx keeps names), on every call of a function that makes
 * closures.
 */

/** True in the compiled program: the build defines this variable as "1". */
export const COMPILED = process.env.LATTICE_COMPILED_BUILD === '1';

/** The statevector engine's threads follow the same rule in engines/quantum/statevector/parallel.ts. */
export type WorkerName = 'quantum-jobs' | 'training';

/** The file a worker thread starts from: its compiled entry in the compiled program, else `bootstrap`. */
export function workerEntry(name: WorkerName, bootstrap: URL): URL {
  return COMPILED ? new URL(`../dist/worker-${name}.js`, import.meta.url) : bootstrap;
}
