import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { allMigrations } from '../server.ts';
import type { ServiceContext } from '../service.ts';
import type { Database } from '../storage/database.ts';
import { openTestDatabase } from '../testing/harness.ts';
import { getJobWithResult, queueAtSubmission, startQuantumWorkers, submitJob, waitForJob, waitForJobWithResult, type CircuitTask, type JobInput, type QuantumJob, type TaskResult } from './index.ts';
import { insertJob, selectJob, selectJobWithResult } from './records.ts';

const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
const task = (backend = 'statevector_simulator'): CircuitTask => ({ qasm: BELL, backend, shots: 100, optimizationLevel: 1, execute: true, seed: 5 });

/** The store, counting the statements that touch the jobs table while `on` is set. */
function counting(db: Database): { db: Database; on: boolean; n: number } {
  const c = { db, on: false, n: 0 };
  const query = db.query.bind(db);
  c.db = Object.assign(Object.create(db) as Database, {
    query: (text: string, params?: readonly unknown[]) => {
      if (c.on && /quantum_jobs/.test(text)) c.n++;
      return query(text, params);
    },
  });
  return c;
}

/**
 * Runs `body` on a fresh store, counted (above), with this process's workers started and warm
 * on it; stops both after. On PostgreSQL the test files share one database, a schema each:
 * other files' submissions notify their own schema's channel (platform/storage/channels.ts),
 * not this runner's.
 */
async function withWorkers(
  options: Parameters<typeof startQuantumWorkers>[1],
  body: (o: { db: Database; ctx: ServiceContext; store: ReturnType<typeof counting> }) => Promise<void>,
): Promise<void> {
  const { db, close } = await openTestDatabase(allMigrations([]));
  const store = counting(db);
  const ctx: ServiceContext = { db: store.db, dataDir: '', now: () => new Date(), queue: () => Promise.reject(new Error('no queue in this test')) };
  const workers = await startQuantumWorkers(ctx, options);
  await workers.pool.warm();
  try {
    await body({ db, ctx, store });
  } finally {
    await workers.release();
    await close();
  }
}

describe('the job path of a process with a free worker', () => {
  it('runs a small job before its insert, which writes it finished, and serves the waiter and the result from memory: one statement per job', async () => {
    // No poll, no waiter's read and no stage writes inside the measured window: only the job's
    // own statements count (a loaded machine can run a job past the waiter's 250 ms read).
    await withWorkers({ pollMs: 600_000, stageWriteDelayMs: 600_000, waitPollMs: 600_000 }, async ({ db, ctx, store }) => {
      const account = await createAccount(db, { email: 'hot@example.test' });
      const scope = { service: 'hot', accountId: account.id };
      const jobs = 10;
      store.on = true;
      for (let i = 0; i < jobs; i++) {
        const job = await submitJob(ctx, { ...scope, kind: 'run', backend: 'statevector_simulator', input: { task: task() } });
        assert.equal(job.status, 'queued', 'the submission answers the job as submitted');
        assert.equal(job.attempts, 0);
        assert.equal(job.startedAt, null);
        assert.deepEqual(await queueAtSubmission(ctx, job), { place: 1, estimatedWaitSeconds: 0 }, 'taken at its insert, it waits for nothing (and no statement asks)');
        const done = await waitForJob(ctx, scope, job.id, 30_000);
        assert.equal(done?.status, 'completed');
        const read = await getJobWithResult<TaskResult>(ctx, scope, job.id);
        assert.equal(read?.job.status, 'completed');
        assert.equal(Object.values(read!.result!.counts).reduce((a, b) => a + b, 0), 100);
        // What memory served is what the row holds; another account reads nothing.
        store.on = false;
        const fromRow = await selectJobWithResult(db, scope, job.id);
        assert.deepEqual(read, fromRow);
        assert.equal(JSON.stringify(read), JSON.stringify(fromRow), 'and serializes byte for byte as the row does');
        assert.equal(await getJobWithResult(ctx, { service: 'hot', accountId: 'acc_someone_else' }, job.id), null);
        assert.equal(await getJobWithResult(ctx, { service: 'other', accountId: account.id }, job.id), null);
        const [row] = await db.query<{ attempts: number; same: boolean; ordered: boolean; owner: string | null }>(
          `SELECT attempts, started_at = created_at AS same, owner,
                  created_at <= run_started_at AND run_started_at <= finished_at AND updated_at = finished_at AS ordered
             FROM quantum_jobs WHERE id = $1`,
          [job.id],
        );
        assert.deepEqual(row, { attempts: 1, same: true, ordered: true, owner: null }, 'taken by its insert, in the same moment, and written finished');
        store.on = true;
      }
      store.on = false;
      // Per job: the insert, which writes it finished; no claim, no completion, no empty claim
      // when the worker frees up, no queue figures, no read by the waiter, none for the result.
      assert.equal(store.n, jobs, `${store.n} statements on the jobs table for ${jobs} jobs`);
    });
  });

  it('takes a job that runs on a worker with its insert and completes it with one UPDATE: two statements per job', async () => {
    await withWorkers({ pollMs: 600_000, stageWriteDelayMs: 600_000, waitPollMs: 600_000 }, async ({ db, ctx, store }) => {
      const account = await createAccount(db, { email: 'worker@example.test' });
      const scope = { service: 'hot', accountId: account.id };
      // Twelve qubits: past the inline bound (inline.ts), so it runs on a worker after its insert.
      const wide: CircuitTask = { ...task(), qasm: 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[12];\ncreg c[12];\nh q[0];\ncx q[0],q[11];\nmeasure q -> c;\n' };
      store.on = true;
      const job = await submitJob(ctx, { ...scope, kind: 'run', backend: 'statevector_simulator', input: { task: wide } });
      assert.equal(job.status, 'queued');
      // Waiting for its result while it runs here reads nothing: the end and the result come from memory.
      const read = await waitForJobWithResult<TaskResult>(ctx, scope, job.id, 30_000);
      assert.equal(read?.job.status, 'completed');
      assert.equal(Object.values(read!.result!.counts).reduce((a, b) => a + b, 0), 100);
      store.on = false;
      assert.equal(store.n, 2, `${store.n} statements on the jobs table: the insert that claims it and the UPDATE that completes it`);
      assert.equal(JSON.stringify(read), JSON.stringify(await selectJobWithResult(db, scope, job.id)), 'what memory served is what the row holds');
      assert.equal(await waitForJobWithResult(ctx, { service: 'hot', accountId: 'acc_someone_else' }, job.id, 1_000), null, 'another account waits for nothing');
    });
  });

  it('charges a job written finished at its insert as a completion does: its run time against its hold, the rest refunded, with and without a quota', async () => {
    await withWorkers({ pollMs: 600_000 }, async ({ db, ctx }) => {
      // The second: a quota of 2 minutes shortens the hold of 5 to what is left (the insert's checked form).
      for (const [i, limits] of [undefined, { minutesIncluded: 2, maxConcurrent: 10 }].entries()) {
        const account = await createAccount(db, { email: `ledger${i}@example.test` });
        const scope = { service: 'hot', accountId: account.id };
        const job = await submitJob(ctx, { ...scope, kind: 'run', backend: 'statevector_simulator', input: { task: task() }, minutesKind: 'simulation', holdMinutes: 5, limits });
        assert.equal(job.status, 'queued');
        assert.equal(job.chargedMinutes, 0, 'answered as submitted');
        assert.equal(job.finishedAt, null);
        const [row] = await db.query<{ status: string; hold: string; reserved: string; charged: string; refunded: string; ms: number }>(
          `SELECT status, hold_minutes::text AS hold, reserved_minutes::text AS reserved, charged_minutes::text AS charged,
                  refunded_minutes::text AS refunded, execution_ms AS ms FROM quantum_jobs WHERE id = $1`,
          [job.id],
        );
        const hold = limits ? 2 : 5;
        assert.equal(row!.status, 'completed');
        assert.equal(Number(row!.hold), hold);
        assert.equal(Number(row!.reserved), hold);
        assert.equal(row!.charged, (row!.ms / 60_000).toFixed(9), 'the run time, in minutes to 9 places');
        assert.equal(Number(row!.charged) + Number(row!.refunded), hold, 'charged and refunded make up the hold');
      }
    });
  });

  it('serves a result of between 8 and 64 KB (stored compressed) from memory exactly as its row reads', async () => {
    await withWorkers({ pollMs: 600_000, stageWriteDelayMs: 600_000 }, async ({ db, ctx }) => {
      const account = await createAccount(db, { email: 'mid@example.test' });
      const scope = { service: 'hot', accountId: account.id };
      // 1000 shots of memory on 3 qubits: about 8 KB of bit strings, beside counts and the optimizer's output.
      const mid: CircuitTask = { qasm: 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\ncreg c[3];\nh q;\nmeasure q -> c;\n', backend: 'statevector_simulator', shots: 1500, optimizationLevel: 1, execute: true, seed: 9, memory: true };
      const job = await submitJob(ctx, { ...scope, kind: 'run', backend: 'statevector_simulator', input: { task: mid } });
      assert.equal((await waitForJob(ctx, scope, job.id, 30_000))?.status, 'completed');
      const read = await getJobWithResult<TaskResult>(ctx, scope, job.id);
      const [row] = await db.query<{ gz: boolean; bytes: number }>('SELECT result_gz IS NOT NULL AS gz, length(result_gz) AS bytes FROM quantum_jobs WHERE id = $1', [job.id]);
      assert.equal(row!.gz, true, 'stored compressed');
      const size = JSON.stringify(read!.result).length;
      assert.ok(size > 8 * 1024 && size <= 64 * 1024, `${size} bytes of result JSON`);
      const fromRow = await selectJobWithResult(db, scope, job.id);
      assert.equal(JSON.stringify(read), JSON.stringify(fromRow), 'memory and row serialize byte for byte alike');
    });
  });

  it('queues a job whose backend has jobs waiting, and a device job while its device is in work, then runs them in order', async () => {
    await withWorkers({ workers: 2 }, async ({ db, ctx }) => {
      const account = await createAccount(db, { email: 'order@example.test' });
      const scope = { service: 'order', accountId: account.id };
      const device = 'lattice_line_5';
      // One after another: their order of submission is their queue order. (Submissions made at
      // the same moment on PostgreSQL run in the order their inserts commit, which can differ
      // from the order their sequence numbers were drawn; the device still runs one at a time.)
      const jobs: QuantumJob<JobInput>[] = [];
      for (let i = 0; i < 3; i++) jobs.push(await submitJob(ctx, { ...scope, kind: 'run', backend: device, input: { task: task(device) } }));
      const together = await Promise.all(Array.from({ length: 3 }, () => submitJob(ctx, { ...scope, kind: 'run', backend: device, input: { task: task(device) } })));
      // Queued behind the device's jobs: its place comes from the queue (the figures' statement).
      const places = await Promise.all(together.map((j) => queueAtSubmission(ctx, j)));
      assert.ok(Math.max(...places.map((p) => p.place)) >= 2, JSON.stringify(places));
      const ended = async (list: readonly QuantumJob<JobInput>[]) => {
        const out: QuantumJob<JobInput>[] = [];
        for (const j of list) out.push((await waitForJob(ctx, scope, j.id, 60_000))!);
        return out;
      };
      const timeline = (list: readonly QuantumJob<JobInput>[]) => JSON.stringify(list.map((j) => [j.queueSeq, j.startedAt, j.finishedAt]));
      const bySeq = [...(await ended(jobs))].sort((a, b) => a.queueSeq - b.queueSeq);
      for (let i = 1; i < bySeq.length; i++) {
        assert.equal(bySeq[i]!.status, 'completed');
        assert.ok(bySeq[i]!.startedAt! >= bySeq[i - 1]!.finishedAt!, `device job ${i} started after job ${i - 1} ended: ${timeline(bySeq)}`);
      }
      const byStart = [...(await ended(together))].sort((a, b) => a.startedAt!.getTime() - b.startedAt!.getTime());
      for (let i = 1; i < byStart.length; i++) {
        assert.equal(byStart[i]!.status, 'completed');
        assert.ok(byStart[i]!.startedAt! >= byStart[i - 1]!.finishedAt!, `one job at a time on the device: ${timeline(byStart)}`);
      }
    });
  });
});

describe('the row an insert returns', () => {
  it('holds the input as the store reads it back, without the store sending it (key order, numbers, dropped undefined)', async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    try {
      const account = await createAccount(db, { email: 'input@example.test' });
      const scope = { service: 'hot', accountId: account.id };
      const input = {
        task: { ...task(), seed: undefined, prepared: { optimized_circuit: 'qreg q[2];', qubit_mapping: { '10': 1, '2': 0, b: 2, a: 3 } } },
        odd: { zz: 1, é: 2, e: 3, '01': 4, '11': 5 },
        numbers: [0.1 + 0.2, 1e-7, 1e21, -0, 123456789012345, 2 ** -30],
        list_price_micros: 1234,
      } as unknown as JobInput;
      const inserted = await insertJob(db, { ...scope, kind: 'run', backend: 'statevector_simulator', input }, new Date());
      const read = await selectJob(db, scope, inserted.id);
      assert.deepEqual(inserted.input, read!.input);
      assert.equal(JSON.stringify(inserted), JSON.stringify(read), 'byte for byte as the row reads');
    } finally {
      await close();
    }
  });
});

describe('the quota count of a submission', () => {
  it("reads the account's unfinished jobs from an index of those alone, not every job the account ever ran", async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    try {
      const account = await createAccount(db, { email: 'history@example.test' });
      await db.query(
        `INSERT INTO quantum_jobs (id, service, account_id, kind, backend, status, input, hold_minutes, reserved_minutes, credits, created_at, updated_at)
         SELECT 'job_old_' || i, 'hot', $1, 'run', 'statevector_simulator', 'completed', '{}'::jsonb, 0, 0, 0, now(), now() FROM generate_series(1, 300) i`,
        [account.id],
      );
      const plan = await db.transaction(async (tx) => {
        // With sequential scans off, the planner picks the cheapest index: the account's whole
        // history (quantum_jobs_account) if nothing narrower exists.
        await tx.query('SET LOCAL enable_seqscan = off');
        const rows = await tx.query<Record<string, string>>(
          `EXPLAIN SELECT count(*) FROM quantum_jobs WHERE service = $1 AND account_id = $2 AND status IN ('queued', 'validating', 'optimizing', 'running')`,
          ['hot', account.id],
        );
        return rows.map((r) => Object.values(r)[0]).join('\n');
      });
      assert.match(plan, /quantum_jobs_account_active/, plan);
    } finally {
      await close();
    }
  });
});
