import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { allMigrations } from '../server.ts';
import type { ServiceContext } from '../service.ts';
import type { Database } from '../storage/database.ts';
import { openTestDatabase } from '../testing/harness.ts';
import { cancelJob, startQuantumWorkers, submitJob, waitForJob, type QuantumJob } from './index.ts';

const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
const ctxOf = (db: Database): ServiceContext => ({ db, dataDir: '', now: () => new Date(), queue: () => Promise.reject(new Error('no queue in these tests')) });

/** Runs one Bell job of `service` on the store to its end; returns its id. */
async function runOne(ctx: ServiceContext, service: string): Promise<string> {
  const account = await createAccount(ctx.db, { email: `${Math.random().toString(36).slice(2)}@example.test` });
  const job = await submitJob(ctx, {
    service, accountId: account.id, kind: 'run', backend: 'statevector_simulator',
    input: { task: { qasm: BELL, backend: 'statevector_simulator', shots: 10, optimizationLevel: 1, execute: true } },
  });
  const done = await waitForJob(ctx, { service }, job.id, 30_000);
  assert.equal(done?.status, 'completed');
  return job.id;
}

/** Handlers run after the end is announced: wait until `seen` holds the job. */
async function seenBy(seen: Map<string, string[]>, id: string): Promise<string[]> {
  for (let i = 0; i < 200 && !seen.has(id); i++) await new Promise((r) => setTimeout(r, 10));
  // A moment more, so that a second handler (which must not run) would have run.
  await new Promise((r) => setTimeout(r, 50));
  return seen.get(id) ?? [];
}

describe('end-of-job handlers belong to the app that registered them', () => {
  it('on one store, the newest app answers; closing it hands the role back to the other, which stays wired', async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    const ctx = ctxOf(db);
    const seen = new Map<string, string[]>();
    const note = (who: string) => (_c: ServiceContext, job: QuantumJob<unknown>) => void seen.set(job.id, [...(seen.get(job.id) ?? []), who]);
    const first = await startQuantumWorkers(ctx);
    const second = await startQuantumWorkers(ctx);
    try {
      first.onJobFinished('two-apps', note('first'));
      second.onJobFinished('two-apps', note('second'));
      assert.deepEqual(await seenBy(seen, await runOne(ctx, 'two-apps')), ['second']);
      await second.release();
      assert.deepEqual(await seenBy(seen, await runOne(ctx, 'two-apps')), ['first']);
      // A job cancelled in this process (or ended by the runner, if it won the race) is answered once, by the same app.
      const account = await createAccount(db, { email: 'cancel@example.test' });
      const queued = await submitJob(ctx, {
        service: 'two-apps', accountId: account.id, kind: 'run', backend: 'lattice_grid_16',
        input: { task: { qasm: BELL, backend: 'lattice_grid_16', shots: 10, optimizationLevel: 1, execute: false } },
      });
      await cancelJob(ctx, { service: 'two-apps' }, queued.id);
      assert.deepEqual(await seenBy(seen, queued.id), ['first']);
    } finally {
      await second.release();
      await first.release();
      await close();
    }
  });

  it('on two stores, each app sees only the jobs of its own store, and closing one leaves the other wired', async () => {
    const a = await openTestDatabase(allMigrations([]));
    const b = await openTestDatabase(allMigrations([]));
    const seen = new Map<string, string[]>();
    const note = (who: string) => (_c: ServiceContext, job: QuantumJob<unknown>) => void seen.set(job.id, [...(seen.get(job.id) ?? []), who]);
    const onA = await startQuantumWorkers(ctxOf(a.db));
    const onB = await startQuantumWorkers(ctxOf(b.db));
    try {
      onA.onJobFinished('two-stores', note('a'));
      onB.onJobFinished('two-stores', note('b'));
      assert.deepEqual(await seenBy(seen, await runOne(ctxOf(a.db), 'two-stores')), ['a']);
      assert.deepEqual(await seenBy(seen, await runOne(ctxOf(b.db), 'two-stores')), ['b']);
      await onA.release();
      assert.deepEqual(await seenBy(seen, await runOne(ctxOf(b.db), 'two-stores')), ['b']);
    } finally {
      await onA.release();
      await onB.release();
      await a.close();
      await b.close();
    }
  });

  it('stopping the runner waits for an end being recorded, so its handler still reads the open store', async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    const ctx = ctxOf(db);
    const workers = await startQuantumWorkers(ctx);
    let started!: () => void;
    const handlerStarted = new Promise<void>((r) => (started = r));
    let outcome = 'not run';
    workers.onJobFinished('slow-handler', async (c, job) => {
      started();
      await new Promise((r) => setTimeout(r, 150));
      try {
        const [row] = await c.db.query<{ status: string }>('SELECT status FROM quantum_jobs WHERE id = $1', [job.id]);
        outcome = row?.status ?? 'no row';
      } catch (err) {
        outcome = (err as Error).message;
      }
    });
    try {
      const account = await createAccount(db, { email: 'slow@example.test' });
      await submitJob(ctx, {
        service: 'slow-handler', accountId: account.id, kind: 'run', backend: 'statevector_simulator',
        input: { task: { qasm: BELL, backend: 'statevector_simulator', shots: 10, optimizationLevel: 1, execute: true } },
      });
      await handlerStarted;
      await workers.release();
    } finally {
      await workers.release();
      await close();
    }
    assert.equal(outcome, 'completed');
  });
});
