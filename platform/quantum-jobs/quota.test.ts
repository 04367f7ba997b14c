/**
 * Concurrent submissions of one account never pass its quotas together: the count of its
 * unfinished jobs, its minutes and its credits are read under the account's lock, after the
 * submissions before it. On PostgreSQL they are sent through two pools of ten connections on
 * the same schema, as two processes of a cluster send them (each with its own connections and
 * its own names for prepared statements).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { allMigrations } from '../server.ts';
import { openPostgres, type Database } from '../storage/database.ts';
import { openTestDatabase } from '../testing/harness.ts';
import { insertJob, QuotaError, type NewJob } from './records.ts';

const input = { task: { qasm: 'OPENQASM 2.0;', backend: 'statevector_simulator', shots: 1 } };

/** Submits `n` jobs of one new account at once; the jobs inserted and the quotas that refused the others. */
async function submitTogether(n: number, job: Omit<NewJob<typeof input>, 'service' | 'accountId' | 'input' | 'kind' | 'backend'>) {
  const { db, close } = await openTestDatabase(allMigrations([]));
  let other: Database | null = null;
  try {
    if (db.kind === 'postgres') {
      const [{ schema }] = await db.query<{ schema: string }>('SELECT current_schema() AS schema');
      other = openPostgres({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${schema}` });
    }
    const account = await createAccount(db, { email: 'quota@example.test' });
    const outcomes = await Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        insertJob(i % 2 && other ? other : db, { service: 'quota', accountId: account.id, kind: 'run', backend: 'statevector_simulator', input, ...job }, new Date()),
      ),
    );
    const refused = outcomes.map((o) => {
      if (o.status === 'fulfilled') return null;
      assert.ok(o.reason instanceof QuotaError, `refused for a quota, not ${String(o.reason)}`);
      return o.reason.reason;
    });
    const [row] = await db.query<{ jobs: number; holds: string; credits: number }>(
      'SELECT count(*)::int AS jobs, COALESCE(sum(hold_minutes), 0)::text AS holds, COALESCE(sum(credits), 0)::int AS credits FROM quantum_jobs WHERE account_id = $1',
      [account.id],
    );
    return { inserted: outcomes.filter((o) => o.status === 'fulfilled').length, refused: refused.filter((q) => q !== null), row: row! };
  } finally {
    await other?.close();
    await close();
  }
}

test('20 submissions at once against 5 concurrent jobs: exactly 5 are inserted', async () => {
  const r = await submitTogether(20, { limits: { maxConcurrent: 5 } });
  assert.equal(r.inserted, 5);
  assert.equal(r.row.jobs, 5);
  assert.deepEqual(new Set(r.refused), new Set(['concurrent_jobs']));
});

test('submissions at once never hold more minutes than the period includes: the last hold is shortened to what is left', async () => {
  const r = await submitTogether(8, { minutesKind: 'simulation', holdMinutes: 0.3, limits: { minutesIncluded: 1, maxConcurrent: 100, periodStart: new Date(0) } });
  assert.equal(r.inserted, 4, '0.3 + 0.3 + 0.3 + the 0.1 left');
  assert.equal(Number(r.row.holds), 1);
  assert.deepEqual(new Set(r.refused), new Set(['minutes']));
});

test('submissions at once never spend more credits than the period includes', async () => {
  const r = await submitTogether(8, { credits: 3, limits: { creditsIncluded: 10, periodStart: new Date(0) } });
  assert.equal(r.inserted, 3);
  assert.equal(r.row.credits, 9);
  assert.deepEqual(new Set(r.refused), new Set(['credits']));
});
