/**
 * The compiled program's worker threads: each starts from its compiled entry in dist/ and does
 * its work there. This process runs from the sources, so it claims to be the compiled program
 * (the variable the build defines) before loading the modules that start threads.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.env.LATTICE_COMPILED_BUILD = '1';

before(async () => {
  // `npm test` builds first; a file run on its own may find dist/ stale.
  const { buildIfStale } = (await import(`${root}scripts/build.mjs`)) as { buildIfStale(o: { quiet: boolean }): Promise<boolean> };
  await buildIfStale({ quiet: true });
});

let closeStatevector: (() => Promise<void> | void) | undefined;
after(async () => {
  await closeStatevector?.();
});

test('every worker the build lists has its compiled entry, and workerEntry names it', async () => {
  const { WORKER_ENTRIES } = (await import(`${root}scripts/build.mjs`)) as { WORKER_ENTRIES: Record<string, string> };
  const { workerEntry, COMPILED } = await import('./threads.ts');
  assert.equal(COMPILED, true);
  assert.deepEqual(Object.keys(WORKER_ENTRIES).sort(), ['quantum-jobs', 'statevector', 'training']);
  for (const [name, source] of Object.entries(WORKER_ENTRIES)) {
    assert.ok(existsSync(`${root}${source}`), source);
    assert.ok(existsSync(`${root}dist/worker-${name}.js`), `dist/worker-${name}.js`);
  }
  const bootstrap = new URL('./quantum-jobs/worker-bootstrap.mjs', import.meta.url);
  assert.equal(fileURLToPath(workerEntry('quantum-jobs', bootstrap)), `${root}dist/worker-quantum-jobs.js`);
});

test('a quantum job runs on the compiled job worker', { timeout: 60_000 }, async () => {
  const { WorkerPool } = await import('./quantum-jobs/pool.ts');
  const pool = new WorkerPool(1);
  try {
    await pool.warm();
    const bell = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
    const { done } = pool.run('execute', { qasm: bell, backend: 'statevector_simulator', shots: 200, optimizationLevel: 1, execute: true, seed: 5 });
    const result = (await done) as { counts: Record<string, number> };
    assert.deepEqual(Object.keys(result.counts).sort(), ['00', '11']);
    assert.equal(result.counts['00']! + result.counts['11']!, 200);
  } finally {
    await pool.close();
  }
});

test('the statevector engine\'s threads run from their compiled entry and agree with one thread', { timeout: 60_000 }, async () => {
  const { runStepsOnPool, closeWorkerPool } = await import('../engines/quantum/statevector/parallel.ts');
  closeStatevector = closeWorkerPool;
  const { randomLayeredCircuit } = await import('../engines/quantum/circuits.ts');
  const { compile } = await import('../engines/quantum/statevector/fusion.ts');
  const { runStepAll } = await import('../engines/quantum/statevector/steps.ts');
  const n = 12;
  const steps = compile(randomLayeredCircuit(n, 6, 3).ops);
  const seq = new Float64Array(2 * 2 ** n);
  seq[0] = 1;
  for (const s of steps) runStepAll(seq, s);
  const par = new Float64Array(new SharedArrayBuffer(8 * 2 * 2 ** n));
  par[0] = 1;
  // Threads for the engine (the test runner may set LATTICE_SIM_THREADS=1 on one-core machines).
  process.env.LATTICE_SIM_THREADS ??= '2';
  assert.ok(runStepsOnPool(par, steps), 'the pool started from dist/worker-statevector.js');
  let d = 0;
  for (let i = 0; i < seq.length; i++) d = Math.max(d, Math.abs(seq[i]! - par[i]!));
  assert.ok(d < 1e-12, `max difference ${d}`);
});
