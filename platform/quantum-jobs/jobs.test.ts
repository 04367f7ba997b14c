import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { allMigrations } from '../server.ts';
import type { ServiceContext } from '../service.ts';
import { openPglite, openPostgres, type Database } from '../storage/database.ts';
import { migrate } from '../storage/migrate.ts';
import { openTestDatabase } from '../testing/harness.ts';
import {
  cancelJob,
  getJob,
  getJobResult,
  retryJob,
  startQuantumWorkers,
  submitJob,
  waitForJob,
  type CircuitTask,
  type TaskResult,
} from './index.ts';

const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';
const ghz = (n: number) =>
  ['OPENQASM 2.0;', 'include "qelib1.inc";', `qreg q[${n}];`, `creg c[${n}];`, 'h q[0];', ...Array.from({ length: n - 1 }, (_, i) => `cx q[${i}],q[${i + 1}];`), 'measure q -> c;'].join('\n');
const task = (qasm: string, backend = 'statevector_simulator', extra: Partial<CircuitTask> = {}): CircuitTask => ({ qasm, backend, shots: 100, optimizationLevel: 1, execute: true, ...extra });
const ctxOf = (db: Database): ServiceContext => ({ db, dataDir: '', now: () => new Date(), queue: () => Promise.reject(new Error('no queue in these tests')) });

/** A store that can be closed and opened again: a PGlite folder, or a schema on the PostgreSQL server. */
async function reopenableStore(): Promise<{ open(): Promise<Database>; dispose(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const admin = openPostgres({ connectionString: url, max: 1 });
    await admin.exec(`CREATE SCHEMA ${schema}`);
    return {
      async open() {
        const db = openPostgres({ connectionString: url, options: `-c search_path=${schema}` });
        await migrate(db, allMigrations([]));
        return db;
      },
      async dispose() {
        await admin.exec(`DROP SCHEMA ${schema} CASCADE`);
        await admin.close();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'lattice-qjobs-'));
  return {
    async open() {
      const db = await openPglite(dir);
      await migrate(db, allMigrations([]));
      return db;
    },
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('the job system survives restarts', () => {
  it('finishes after a restart a job that was queued before it, and one left running by a killed process', async () => {
    const store = await reopenableStore();
    after(() => store.dispose());
    let db = await store.open();
    const account = await createAccount(db, { email: `r-${randomBytes(3).toString('hex')}@example.test` });
    // No workers in this process: the job stays queued, as when the server dies right after the insert.
    const queued = await submitJob(ctxOf(db), { service: 'test', accountId: account.id, kind: 'run', backend: 'statevector_simulator', input: { task: task(BELL) } });
    const orphan = await submitJob(ctxOf(db), { service: 'test', accountId: account.id, kind: 'run', backend: 'lattice_line_5', input: { task: task(BELL, 'lattice_line_5') } });
    // As a process killed with -9 leaves it: in work, owned by a process that no longer renews its lease.
    await db.query(`UPDATE quantum_jobs SET status = 'running', attempts = 1, owner = 'killed:1', lease_until = now() - interval '1 second', started_at = now() WHERE id = $1`, [orphan.id]);
    assert.equal((await getJob(ctxOf(db), { service: 'test' }, queued.id))!.status, 'queued');
    await db.close();

    db = await store.open();
    const ctx = ctxOf(db);
    const workers = await startQuantumWorkers(ctx);
    try {
      for (const id of [queued.id, orphan.id]) {
        const done = await waitForJob(ctx, { service: 'test', accountId: account.id }, id, 60_000);
        assert.equal(done?.status, 'completed', `${id}: ${JSON.stringify(done?.error)}`);
        const r = await getJobResult<TaskResult>(ctx, { service: 'test' }, id);
        assert.equal(Object.values(r!.counts).reduce((a, b) => a + b, 0), 100);
      }
      assert.equal((await getJob(ctx, { service: 'test' }, orphan.id))!.attempts, 2);
    } finally {
      await workers.release();
      await db.close();
    }
  });
});

describe('the job system under concurrency', () => {
  it('leaves each of 20 jobs in exactly one terminal state when 20 cancels race 20 completions, with an exact minutes ledger', async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    const ctx = ctxOf(db);
    const workers = await startQuantumWorkers(ctx);
    await workers.pool.warm();
    const ends = new Map<string, string[]>();
    workers.onJobFinished('race', (_ctx, job) => {
      ends.set(job.id, [...(ends.get(job.id) ?? []), job.status]);
    });
    try {
      const account = await createAccount(db, { email: 'race@example.test' });
      const jobs = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          submitJob(ctx, {
            service: 'race', accountId: account.id, kind: 'run', backend: 'statevector_simulator', minutesKind: 'simulation', holdMinutes: 5,
            input: { task: task(ghz(8 + (i % 8)), 'statevector_simulator', { shots: 2000, seed: i }) },
          }),
        ),
      );
      const cancels = await Promise.all(
        jobs.map(async (j, i) => {
          await new Promise((r) => setTimeout(r, (i * 7) % 40));
          return cancelJob(ctx, { service: 'race', accountId: account.id }, j.id);
        }),
      );
      for (const j of jobs) await waitForJob(ctx, { service: 'race' }, j.id, 60_000);
      await new Promise((r) => setTimeout(r, 100));
      const rows = await db.query<{ id: string; status: string; exact: boolean; has_result: boolean; refunded: string; charged: string }>(
        `SELECT id, status, (charged_minutes + refunded_minutes = reserved_minutes) AS exact, (result IS NOT NULL OR result_gz IS NOT NULL) AS has_result,
                refunded_minutes::text AS refunded, charged_minutes::text AS charged
           FROM quantum_jobs WHERE service = 'race'`,
      );
      assert.equal(rows.length, 20);
      const byStatus = { completed: 0, cancelled: 0 };
      for (const r of rows) {
        assert.ok(r.status === 'completed' || r.status === 'cancelled', `${r.id} is ${r.status}`);
        byStatus[r.status as 'completed' | 'cancelled']++;
        assert.equal(r.exact, true, `${r.id}: charged ${r.charged} + refunded ${r.refunded} = reserved`);
        assert.equal(r.has_result, r.status === 'completed', `${r.id}: a result only when completed`);
        assert.deepEqual(ends.get(r.id), [r.status], `${r.id} ended once, as ${r.status}`);
        const c = cancels[jobs.findIndex((j) => j.id === r.id)]!;
        assert.equal(c.outcome === 'cancelled', r.status === 'cancelled', `${r.id}: the cancel answer agrees with the row`);
      }
      assert.ok(byStatus.cancelled > 0, `some cancels won (${JSON.stringify(byStatus)})`);
      assert.ok(workers.runner.activeCount() === 0, 'every simulation stopped');
    } finally {
      await workers.release();
      await close();
    }
  });
});

describe('queues, retries and results', () => {
  it('runs an emulated device queue one job at a time in submission order, retries a failed job, and compresses large results', async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    const ctx = ctxOf(db);
    const workers = await startQuantumWorkers(ctx);
    await workers.pool.warm();
    try {
      const account = await createAccount(db, { email: 'fifo@example.test' });
      const scope = { service: 'fifo', accountId: account.id };
      const jobs = [];
      for (let i = 0; i < 4; i++) {
        jobs.push(await submitJob(ctx, { ...scope, kind: 'run', backend: 'lattice_grid_16', input: { task: task(ghz(9), 'lattice_grid_16', { shots: 500 }) } }));
      }
      const done = [];
      for (const j of jobs) done.push((await waitForJob(ctx, scope, j.id, 60_000))!);
      for (let i = 1; i < done.length; i++) {
        assert.equal(done[i]!.status, 'completed');
        assert.ok(done[i]!.startedAt! >= done[i - 1]!.finishedAt!, `job ${i} started after job ${i - 1} ended`);
      }

      // A job whose circuit cannot run fails, and a retry puts it back in its queue as a new attempt.
      const failing = await submitJob(ctx, { ...scope, kind: 'run', backend: 'statevector_simulator', input: { task: task('OPENQASM 2.0;\nqreg q[1];\nnope q[0];\n') } });
      const failed = await waitForJob(ctx, scope, failing.id, 30_000);
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.error?.code, 'INVALID_CIRCUIT');
      assert.equal(await retryJob(ctx, { service: 'fifo', accountId: 'acc_someone_else' }, failing.id), null, 'scoped by account');
      const again = await retryJob(ctx, scope, failing.id);
      assert.equal(again?.status, 'queued');
      assert.equal((await waitForJob(ctx, scope, failing.id, 30_000))?.attempts, 2);
      assert.equal(await retryJob(ctx, scope, jobs[0]!.id), null, 'only failed jobs are retried');

      // 6000 shots of memory on 12 qubits: about 90 KB of JSON, stored compressed and read back whole.
      const big = await submitJob(ctx, { ...scope, kind: 'run', backend: 'statevector_simulator', input: { task: task(ghz(12), 'statevector_simulator', { shots: 6000, memory: true }) } });
      await waitForJob(ctx, scope, big.id, 30_000);
      const [row] = await db.query<{ gz: boolean }>('SELECT result_gz IS NOT NULL AS gz FROM quantum_jobs WHERE id = $1', [big.id]);
      assert.equal(row!.gz, true);
      const r = await getJobResult<TaskResult>(ctx, scope, big.id);
      assert.equal(r!.memory!.length, 6000);
      assert.equal(await getJobResult(ctx, { service: 'fifo', accountId: 'acc_someone_else' }, big.id), null);
    } finally {
      await workers.release();
      await close();
    }
  });
});

describe('a cancel limited to some states', () => {
  it('leaves a job that has left those states as it is (a supplier job a worker just started keeps running)', async () => {
    const { db, close } = await openTestDatabase(allMigrations([]));
    try {
      const ctx = ctxOf(db);
      const account = await createAccount(db, { email: 'only-queued@example.test' });
      const scope = { service: 'only-queued', accountId: account.id };
      const running = await submitJob(ctx, { ...scope, kind: 'run', backend: 'statevector_simulator', input: { task: task(BELL) } });
      // As a worker leaves it the moment it claims the job (no workers run in this process).
      await db.query(`UPDATE quantum_jobs SET status = 'running', attempts = 1, owner = 'elsewhere:1', lease_until = now() + interval '1 minute', started_at = now() WHERE id = $1`, [running.id]);
      const refused = await cancelJob(ctx, scope, running.id, ['queued']);
      assert.equal(refused.outcome, 'already_finished');
      assert.equal((await getJob(ctx, scope, running.id))!.status, 'running');
      const queued = await submitJob(ctx, { ...scope, kind: 'run', backend: 'statevector_simulator', input: { task: task(BELL) } });
      assert.equal((await cancelJob(ctx, scope, queued.id, ['queued'])).outcome, 'cancelled');
      assert.equal((await getJob(ctx, scope, queued.id))!.status, 'cancelled');
    } finally {
      await close();
    }
  });
});
