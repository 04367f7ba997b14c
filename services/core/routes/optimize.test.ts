/** POST /api/v2/optimize and GET /api/v2/optimize/{job_id}: real optimizer and simulator runs, checks before anything is stored. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startCore, BELL, REDUNDANT, type CoreTest } from '../testing.ts';

let c: CoreTest;
before(async () => {
  c = await startCore();
});
after(() => c.svc.close());

async function jobCount(): Promise<number> {
  const [row] = await c.svc.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM quantum_jobs WHERE service = 'core'`);
  return row!.n;
}

describe('optimize jobs', () => {
  test('a Bell circuit is queued (202) and completes with depths, counts and probabilities from real runs', async () => {
    const key = await c.key('pro');
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator' } });
    assert.equal(res.status, 202);
    assert.equal(res.body.success, true);
    assert.match(res.body.data.job_id, /^job_/);
    assert.ok(['queued', 'validating', 'optimizing', 'running', 'completed'].includes(res.body.data.status));
    assert.equal(typeof res.body.data.estimated_time, 'number');
    const job = await c.settle(key, res.body.data.job_id);
    assert.equal(job.status, 'completed');
    assert.equal(job.shots, 1024, 'shots default to 1024');
    assert.equal(job.optimization_level, 2, 'level defaults to 2');
    assert.equal(job.original_depth, 3);
    assert.ok(job.optimized_depth >= 1);
    const counts = job.results.counts as Record<string, number>;
    assert.deepEqual(Object.keys(counts).sort(), ['00', '11']);
    assert.equal(counts['00']! + counts['11']!, 1024);
    assert.ok(Math.abs(job.results.probabilities['00'] - counts['00']! / 1024) < 1e-6);
    assert.equal(job.evidence_bundle_id, null, 'no evidence unless asked for');
  });

  test('the optimizer reduces a redundant circuit: reduction_percent is the depth reduction', async () => {
    const key = await c.key('pro');
    const res = await c.as(key, '/api/v2/optimize', {
      method: 'POST',
      body: { qasm: REDUNDANT, backend: 'lattice_line_5', shots: 500, options: { optimization_level: 3 } },
    });
    assert.equal(res.status, 202);
    const job = await c.settle(key, res.body.data.job_id);
    assert.equal(job.status, 'completed');
    assert.equal(job.optimization_level, 3);
    assert.equal(job.backend, 'lattice_line_5');
    assert.ok(job.optimized_depth < job.original_depth, `${job.optimized_depth} < ${job.original_depth}`);
    const expected = Math.round(((job.original_depth - job.optimized_depth) / job.original_depth) * 10000) / 100;
    assert.equal(job.reduction_percent, expected);
    const total = Object.values(job.results.counts as Record<string, number>).reduce((a, b) => a + b, 0);
    assert.equal(total, 500);
    // After cancellation the circuit is h q0; cx q0,q1; cx q1,q2: a GHZ state, so 000 and 111 dominate on the noisy device.
    const ghz = (job.results.counts['000'] ?? 0) + (job.results.counts['111'] ?? 0);
    // Uniform noise would give 125; the device's errors leave about 445, so 400 holds with room for chance.
    assert.ok(ghz > 400, `000 and 111 hold most shots (${ghz} of 500)`);
    const details = await c.as(key, `/api/v2/jobs/${job.job_id}`);
    assert.equal(details.status, 200);
    assert.match(details.body.data.optimized_circuit, /^OPENQASM 2\.0;/);
    assert.ok(details.body.data.optimized_gates < details.body.data.original_gates);
  });

  test('invalid QASM is 400 INVALID_CIRCUIT naming the line and column, and stores nothing', async () => {
    const key = await c.key('pro');
    const before = await jobCount();
    const qasm = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nh q[0];\ncx q[0] q[1];\n';
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm, backend: 'statevector_simulator' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'INVALID_CIRCUIT');
    assert.match(res.body.error.message, /line 5, column \d+/);
    assert.equal(await jobCount(), before);
    const stats = await c.as(key, '/api/v2/optimize/stats');
    assert.equal(stats.body.data.evaluations_used, 0, 'a refused circuit is no evaluation');
  });

  test('an unknown backend is 400 INVALID_BACKEND listing the known ones', async () => {
    const key = await c.key('pro');
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'ibm_nowhere' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'INVALID_BACKEND');
    assert.match(res.body.error.message, /ibm_nowhere/);
    assert.match(res.body.error.message, /lattice_line_5/);
  });

  test('a circuit wider than the backend is 400 INVALID_CIRCUIT; too many shots for it is 400', async () => {
    const key = await c.key('pro');
    const before = await jobCount();
    const wide = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[6];\ncreg c[6];\nh q[0];\nmeasure q -> c;\n';
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: wide, backend: 'lattice_line_5' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'INVALID_CIRCUIT');
    assert.match(res.body.error.message, /6 qubits/);
    const shots = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'lattice_ion_11', shots: 20_000 } });
    assert.equal(shots.status, 400);
    assert.match(shots.body.error.message, /10000/);
    assert.equal(await jobCount(), before);
  });

  test("another account's job is 404 JOB_NOT_FOUND on every job route, like an unknown id", async () => {
    const owner = await c.key('pro');
    const stranger = await c.key('pro');
    const res = await c.as(owner, '/api/v2/optimize', { method: 'POST', body: { qasm: BELL, backend: 'statevector_simulator', shots: 10 } });
    const id = res.body.data.job_id as string;
    for (const [method, path] of [
      ['GET', `/api/v2/optimize/${id}`],
      ['GET', `/api/v2/jobs/${id}`],
      ['DELETE', `/api/v2/jobs/${id}`],
      ['POST', `/api/v2/jobs/${id}/retry`],
    ] as const) {
      const theirs = await c.as(stranger, path, { method });
      assert.equal(theirs.status, 404, `${method} ${path}`);
      assert.equal(theirs.body.error.code, 'JOB_NOT_FOUND');
      const unknown = await c.as(stranger, path.replace(id, 'job_doesnotexist'), { method });
      assert.deepEqual(unknown.body.error.code, theirs.body.error.code);
    }
    assert.equal((await c.settle(owner, id)).status, 'completed');
  });
});
