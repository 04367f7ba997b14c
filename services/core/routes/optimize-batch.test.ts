/** Batches, stats and the monthly evaluation quota (403 QUOTA_EXCEEDED), all or nothing. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monthPeriod } from '../../../platform/identity/usage.ts';
import { startCore, BELL, REDUNDANT, type CoreTest } from '../testing.ts';

let c: CoreTest;
before(async () => {
  c = await startCore();
});
after(() => c.svc.close());

/** A key of a new account on `plan` whose month already used `used` evaluations. */
async function keyWithUsed(plan: string, used: number): Promise<string> {
  const { key, accountId } = await c.svc.newKey({ plan });
  await c.svc.db.query(
    `INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ($1, 'core', 'evaluations', $2, $3)
     ON CONFLICT (account_id, service, counter, period) DO UPDATE SET value = EXCLUDED.value`,
    [accountId, monthPeriod(c.svc.clock.now()), used],
  );
  return key;
}

describe('batches', () => {
  test('a batch of circuits on several backends gives one job each and a batch status that ends completed', async () => {
    const key = await c.key('pro');
    const res = await c.as(key, '/api/v2/optimize/batch', {
      method: 'POST',
      body: {
        circuits: [
          { qasm: BELL, backend: 'statevector_simulator' },
          { qasm: REDUNDANT, backend: 'lattice_line_5' },
          { qasm: BELL, backend: 'mps_simulator' },
        ],
        options: { optimization_level: 1 },
      },
    });
    assert.equal(res.status, 202);
    assert.match(res.body.data.batch_id, /^batch_/);
    assert.equal(res.body.data.job_ids.length, 3);
    assert.equal(res.body.data.status, 'processing');
    for (const id of res.body.data.job_ids) {
      const job = await c.settle(key, id);
      assert.equal(job.status, 'completed');
      assert.equal(job.optimization_level, 1);
    }
    const batch = await c.as(key, `/api/v2/optimize/batch/${res.body.data.batch_id}`);
    assert.equal(batch.status, 200);
    assert.equal(batch.body.data.status, 'completed');
    assert.equal(batch.body.data.total, 3);
    assert.deepEqual(batch.body.data.counts, { completed: 3 });
    assert.deepEqual(batch.body.data.jobs.map((j: { job_id: string }) => j.job_id), res.body.data.job_ids);
    const other = await c.as(await c.key('pro'), `/api/v2/optimize/batch/${res.body.data.batch_id}`);
    assert.equal(other.status, 404);
  });

  test('one bad circuit refuses the whole batch, naming it, and stores nothing', async () => {
    const key = await c.key('pro');
    const res = await c.as(key, '/api/v2/optimize/batch', {
      method: 'POST',
      body: { circuits: [{ qasm: BELL, backend: 'statevector_simulator' }, { qasm: 'qreg q[2]; h q[9];', backend: 'statevector_simulator' }] },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'INVALID_CIRCUIT');
    assert.match(res.body.error.message, /^circuits\[1\]: /);
    assert.equal((await c.as(key, '/api/v2/jobs')).body.data.pagination.total, 0);
    const empty = await c.as(key, '/api/v2/optimize/batch', { method: 'POST', body: { circuits: [] } });
    assert.equal(empty.status, 400);
    const many = await c.as(key, '/api/v2/optimize/batch', {
      method: 'POST',
      body: { circuits: Array.from({ length: 101 }, () => ({ qasm: BELL, backend: 'statevector_simulator' })) },
    });
    assert.equal(many.status, 400);
  });
});

describe('stats and the evaluation quota', () => {
  test('stats count jobs, completed circuits, mean reduction and evaluations against the plan', async () => {
    const key = await c.key('free');
    const empty = await c.as(key, '/api/v2/optimize/stats');
    assert.deepEqual(empty.body.data, { total_jobs: 0, total_circuits: 0, avg_reduction: null, evaluations_used: 0, evaluations_limit: 100 });
    const a = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 100 } });
    const b = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: REDUNDANT, backend: 'statevector_simulator', shots: 100 } });
    const ja = await c.settle(key, a.body.data.job_id);
    const jb = await c.settle(key, b.body.data.job_id);
    const stats = await c.as(key, '/api/v2/optimize/stats');
    assert.equal(stats.body.data.total_jobs, 2);
    assert.equal(stats.body.data.total_circuits, 2);
    assert.equal(stats.body.data.avg_reduction, Math.round(((ja.reduction_percent + jb.reduction_percent) / 2) * 100) / 100);
    assert.equal(stats.body.data.evaluations_used, 2);
    assert.equal((await c.as(await c.key('pro'), '/api/v2/optimize/stats')).body.data.evaluations_limit, 10000);
    assert.equal((await c.as(await c.key('enterprise'), '/api/v2/optimize/stats')).body.data.evaluations_limit, null);
  });

  test('past 100 evaluations a month the free plan gets 403 QUOTA_EXCEEDED; a batch is taken whole or not at all', async () => {
    const key = await keyWithUsed('free', 98);
    const batch = await c.as(key, '/api/v2/optimize/batch', {
      method: 'POST',
      body: { circuits: [1, 2, 3].map(() => ({ qasm: BELL, backend: 'statevector_simulator', shots: 10 })) },
    });
    assert.equal(batch.status, 403);
    assert.equal(batch.body.error.code, 'QUOTA_EXCEEDED');
    assert.match(batch.body.error.message, /100 circuit evaluations per month/);
    assert.equal((await c.as(key, '/api/v2/jobs')).body.data.pagination.total, 0, 'nothing stored');
    assert.equal((await c.as(key, '/api/v2/optimize/stats')).body.data.evaluations_used, 98, 'nothing taken');
    const two = await c.as(key, '/api/v2/optimize/batch', {
      method: 'POST',
      body: { circuits: [1, 2].map(() => ({ qasm: BELL, backend: 'statevector_simulator', shots: 10 })) },
    });
    assert.equal(two.status, 202);
    const over = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator' } });
    assert.equal(over.status, 403);
    assert.equal(over.body.error.code, 'QUOTA_EXCEEDED');
    assert.equal((await c.as(key, '/api/v2/optimize/stats')).body.data.evaluations_used, 100);
    // A new UTC month starts a new allowance.
    const now = c.svc.clock.now();
    c.svc.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1)));
    const next = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 10 } });
    assert.equal(next.status, 202);
    for (const id of [...two.body.data.job_ids, next.body.data.job_id]) await c.settle(key, id);
  });

  test('concurrent submissions never pass the plan together', async () => {
    const key = await keyWithUsed('free', 95);
    const results = await Promise.all(
      Array.from({ length: 12 }, () => c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 10 } })),
    );
    assert.equal(results.filter((r) => r.status === 202).length, 5);
    assert.equal(results.filter((r) => r.status === 403).length, 7);
    assert.equal((await c.as(key, '/api/v2/optimize/stats')).body.data.evaluations_used, 100);
    for (const r of results.filter((x) => x.status === 202)) await c.settle(key, r.body.data.job_id);
  });

  test('enterprise has no evaluation limit', async () => {
    const key = await keyWithUsed('enterprise', 5_000_000);
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 10 } });
    assert.equal(res.status, 202);
    await c.settle(key, res.body.data.job_id);
  });
});
