/**
 * Runs compiled steps on a shared statevector with a pool of worker threads: every thread
 * takes a slice of each step's iterations and all meet at a barrier on shared memory before
 * the next step. The pool starts once (a worker costs 0.2-0.4 s to start) and only for states
 * large enough to pay for it; without workers the steps run on this thread.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Step } from './steps.ts';
import { runStep, stepCount } from './steps.ts';

/** Smallest state (qubits) run in parallel. */
export const PARALLEL_MIN_QUBITS = 20;
/** Starting the pool costs about a second (tsx loads in each worker): start it only for this much work. */
const POOL_START_MIN_ITERATIONS = 2 ** 27;
const BARRIER_TIMEOUT_MS = 120_000;

interface Pool {
  workers: Worker[];
  /** [0] arrivals, [1] generation, [2] workers ready, [3] failures */
  ctrl: Int32Array;
}

let pool: Pool | null | undefined;

function threadCount(): number {
  const env = Number(process.env.LATTICE_SIM_THREADS);
  if (Number.isInteger(env) && env >= 1) return env;
  return Math.max(1, Math.min(8, availableParallelism()));
}

/**
 * The compiled program (its build defines LATTICE_COMPILED_BUILD) starts the thread from its
 * compiled entry; from the sources a bootstrap registers tsx in the thread first. The same rule
 * as platform/threads.ts, kept here so that the engine depends on no platform code.
 */
const WORKER_ENTRY = process.env.LATTICE_COMPILED_BUILD === '1'
  ? new URL('../../../dist/worker-statevector.js', import.meta.url)
  : new URL('./worker-bootstrap.mjs', import.meta.url);

/** Start the pool (blocking until the workers are up); null when threads are unavailable. */
function getPool(): Pool | null {
  if (pool !== undefined) return pool;
  const n = threadCount() - 1;
  if (n < 1) return (pool = null);
  const ctrl = new Int32Array(new SharedArrayBuffer(16));
  const workers: Worker[] = [];
  try {
    for (let w = 0; w < n; w++) {
      const worker = new Worker(WORKER_ENTRY, { workerData: { ctrl: ctrl.buffer } });
      worker.on('error', () => {
        Atomics.add(ctrl, 3, 1);
        Atomics.notify(ctrl, 1);
      });
      worker.unref();
      workers.push(worker);
    }
  } catch {
    for (const w of workers) void w.terminate();
    return (pool = null);
  }
  const deadline = Date.now() + 20_000;
  while (Atomics.load(ctrl, 2) < n && Date.now() < deadline) Atomics.wait(ctrl, 2, Atomics.load(ctrl, 2), 50);
  if (Atomics.load(ctrl, 2) < n) {
    for (const w of workers) void w.terminate();
    return (pool = null);
  }
  return (pool = { workers, ctrl });
}

/** Wait until every party has arrived (sense by generation counter). */
export function barrier(ctrl: Int32Array, parties: number): void {
  const gen = Atomics.load(ctrl, 1);
  if (Atomics.add(ctrl, 0, 1) === parties - 1) {
    Atomics.store(ctrl, 0, 0);
    Atomics.add(ctrl, 1, 1);
    Atomics.notify(ctrl, 1);
    return;
  }
  const start = Date.now();
  while (Atomics.load(ctrl, 1) === gen) {
    Atomics.wait(ctrl, 1, gen, 1000);
    if (Atomics.load(ctrl, 3) > 0) throw new Error('a simulation worker thread failed');
    if (Date.now() - start > BARRIER_TIMEOUT_MS) throw new Error('simulation worker threads stopped responding');
  }
}

/** The [lo, hi) share of `count` iterations for party `p` of `parties`. */
export function share(count: number, p: number, parties: number): [number, number] {
  const per = Math.ceil(count / parties);
  return [Math.min(count, p * per), Math.min(count, (p + 1) * per)];
}

/** Run steps on `st`, in parallel when the state is shared and large enough. */
export function runSteps(st: Float64Array, n: number, steps: Step[]): void {
  let work = 0;
  for (const s of steps) work += stepCount(s, st.length);
  const eligible = n >= PARALLEL_MIN_QUBITS && st.buffer instanceof SharedArrayBuffer && steps.length > 0;
  const p = eligible && (pool || work >= POOL_START_MIN_ITERATIONS) ? getPool() : null;
  if (!p) {
    for (const s of steps) runStep(st, s, 0, stepCount(s, st.length));
    return;
  }
  runOnPool(p, st, steps);
}

/**
 * Run steps on the worker pool whatever the state size (tests use it on small states).
 * Returns false when no pool could be started (the steps are then not run).
 */
export function runStepsOnPool(st: Float64Array, steps: Step[]): boolean {
  if (!(st.buffer instanceof SharedArrayBuffer)) throw new Error('the worker pool needs a state in a SharedArrayBuffer');
  const p = getPool();
  if (!p) return false;
  runOnPool(p, st, steps);
  return true;
}

function runOnPool(p: Pool, st: Float64Array, steps: Step[]): void {
  const parties = p.workers.length + 1;
  p.workers.forEach((w, i) => w.postMessage({ state: st.buffer, steps, party: i + 1, parties }));
  for (const s of steps) {
    const [lo, hi] = share(stepCount(s, st.length), 0, parties);
    runStep(st, s, lo, hi);
    barrier(p.ctrl, parties);
  }
}

/** Whether states of n qubits should be allocated in shared memory. */
export function wantsShared(n: number): boolean {
  return n >= PARALLEL_MIN_QUBITS && threadCount() > 1;
}

/** Stop the worker pool (benchmarks and tests call this before exiting). */
export async function closeWorkerPool(): Promise<void> {
  if (!pool) return;
  const p = pool;
  pool = undefined;
  await Promise.all(p.workers.map((w) => w.terminate()));
}
