/** The job routes: list with filter and pages, details, cancel of queued and running jobs, retry of a failed job. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startCore, BELL, type CoreTest } from '../testing.ts';

let c: CoreTest;
before(async () => {
  c = await startCore();
});
after(() => c.svc.close());

/** An 11-qubit circuit of `layers` rotation and CX layers: seconds of noisy simulation on lattice_ion_11. */
function slowCircuit(layers: number): string {
  let s = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[11];\ncreg c[11];\n';
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < 11; i++) s += `rx(${(0.1 + l * 0.37 + i * 0.11).toFixed(3)}) q[${i}];\n`;
    for (let i = l % 2; i + 1 < 11; i += 2) s += `cx q[${i}],q[${i + 1}];\n`;
  }
  return `${s}measure q -> c;\n`;
}

/** Mid-circuit measurement: the MPS simulator takes terminal measurements only, so the run fails. */
const MID_MEASURE = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\nmeasure q[0] -> c[0];\ncx q[0],q[1];\nmeasure q[1] -> c[1];\n';

async function submit(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.data.job_id;
}

async function statusOf(key: string, id: string): Promise<string> {
  return (await c.as(key, `/api/v2/jobs/${id}`)).body.data.status;
}

describe('listing and details', () => {
  test('jobs are listed newest first with pagination (limit 20 by default) and a status filter', async () => {
    const key = await c.key('pro');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await submit(key, { qasm: BELL, backend: 'statevector_simulator', shots: 16 }));
    for (const id of ids) await c.settle(key, id);
    const all = await c.as(key, '/api/v2/jobs');
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.data.pagination, { total: 3, limit: 20, offset: 0 });
    assert.deepEqual(all.body.data.jobs.map((j: { job_id: string }) => j.job_id), [...ids].reverse());
    const item = all.body.data.jobs[0];
    assert.deepEqual(Object.keys(item).sort(), ['completed_at', 'created_at', 'job_id', 'status']);
    assert.ok(Date.parse(item.completed_at) >= Date.parse(item.created_at));
    const page = await c.as(key, '/api/v2/jobs?limit=2&offset=1');
    assert.deepEqual(page.body.data.pagination, { total: 3, limit: 2, offset: 1 });
    assert.deepEqual(page.body.data.jobs.map((j: { job_id: string }) => j.job_id), [ids[1], ids[0]]);
    assert.equal((await c.as(key, '/api/v2/jobs?status=completed')).body.data.pagination.total, 3);
    assert.equal((await c.as(key, '/api/v2/jobs?status=failed')).body.data.pagination.total, 0);
    assert.equal((await c.as(await c.key('pro'), '/api/v2/jobs')).body.data.pagination.total, 0, "another account's jobs are not listed");
  });

  test('job details carry the times, the circuit hash and the optimizer figures', async () => {
    const key = await c.key('pro');
    const id = await submit(key, { qasm: BELL, backend: 'lattice_falcon_27', shots: 64, options: { optimization_level: 0 } });
    await c.settle(key, id);
    const res = await c.as(key, `/api/v2/jobs/${id}`);
    const d = res.body.data;
    assert.equal(d.job_id, id);
    assert.equal(d.status, 'completed');
    assert.equal(d.backend, 'lattice_falcon_27');
    assert.equal(d.optimization_level, 0);
    assert.equal(d.batch_id, null);
    assert.equal(d.attempts, 1);
    assert.equal(d.error, null);
    assert.match(d.circuit_hash, /^sha3-256:[0-9a-f]{64}$/);
    assert.ok(Date.parse(d.started_at) >= Date.parse(d.created_at));
    assert.ok(Date.parse(d.completed_at) >= Date.parse(d.started_at));
    assert.ok(d.execution_time_ms > 0);
    assert.equal(Object.values(d.results.counts as Record<string, number>).reduce((a, b) => a + b, 0), 64);
  });
});

describe('cancel', () => {
  test('a queued job and a running job are cancelled; the device queue moves on; a finished job answers 409', async () => {
    const key = await c.key('pro');
    const running = await submit(key, { qasm: slowCircuit(40), backend: 'lattice_ion_11', shots: 10000, options: { optimization_level: 0 } });
    const queued = await submit(key, { qasm: slowCircuit(40), backend: 'lattice_ion_11', shots: 10000, options: { optimization_level: 0 } });
    const until = Date.now() + 20_000;
    while ((await statusOf(key, running)) === 'queued' && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.notEqual(await statusOf(key, running), 'queued');
    assert.equal(await statusOf(key, queued), 'queued', 'the device runs one job at a time, in order');
    const pending = (await c.as(key, '/api/v2/jobs?status=pending')).body.data;
    assert.deepEqual(pending.jobs.map((j: { job_id: string }) => j.job_id), [queued], 'pending (the spec\'s word) lists the queued job');

    const q = await c.as(key, `/api/v2/jobs/${queued}`, { method: 'DELETE' });
    assert.equal(q.status, 200);
    assert.deepEqual(q.body, { success: true, data: { job_id: queued, status: 'cancelled' } });
    const r = await c.as(key, `/api/v2/jobs/${running}`, { method: 'DELETE' });
    assert.equal(r.status, 200);
    assert.equal(r.body.data.status, 'cancelled');

    // The device queue moves on: a small job behind them runs and completes.
    const next = await submit(key, { qasm: BELL, backend: 'lattice_ion_11', shots: 100 });
    assert.equal((await c.settle(key, next, 60_000)).status, 'completed');

    const again = await c.as(key, `/api/v2/jobs/${running}`, { method: 'DELETE' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'INVALID_JOB_STATE');
    assert.equal((await c.as(key, `/api/v2/jobs/${next}`, { method: 'DELETE' })).status, 409);
    const view = (await c.as(key, `/api/v2/optimize/${running}`)).body.data;
    assert.equal(view.status, 'cancelled');
    assert.equal(view.results, null);
    assert.equal((await c.as(key, '/api/v2/jobs?status=cancelled')).body.data.pagination.total, 2);
  });
});

describe('retry', () => {
  test('a failed job says why; retry queues it again under the same id (202); only failed jobs can be retried', async () => {
    const key = await c.key('pro');
    const id = await submit(key, { qasm: MID_MEASURE, backend: 'mps_simulator', shots: 10, options: { optimization_level: 0 } });
    const failed = await c.settle(key, id);
    assert.equal(failed.status, 'failed');
    const details = (await c.as(key, `/api/v2/jobs/${id}`)).body.data;
    assert.equal(details.error.code, 'EXECUTION_ERROR');
    assert.match(details.error.message, /terminal/i);
    assert.equal(details.attempts, 1);

    const before = (await c.as(key, '/api/v2/optimize/stats')).body.data.evaluations_used;
    const retried = await c.as(key, `/api/v2/jobs/${id}/retry`, { method: 'POST' });
    assert.equal(retried.status, 202);
    assert.equal(retried.body.data.job_id, id);
    assert.equal(retried.body.data.status, 'queued');
    assert.ok(!Number.isNaN(Date.parse(retried.body.data.retried_at)));
    const second = await c.settle(key, id);
    assert.equal(second.status, 'failed', 'the same circuit fails the same way');
    assert.equal((await c.as(key, `/api/v2/jobs/${id}`)).body.data.attempts, 2);
    assert.equal((await c.as(key, '/api/v2/optimize/stats')).body.data.evaluations_used, before, 'a retry is no new evaluation');

    const ok = await submit(key, { qasm: BELL, backend: 'statevector_simulator', shots: 10 });
    await c.settle(key, ok);
    const refused = await c.as(key, `/api/v2/jobs/${ok}/retry`, { method: 'POST' });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'INVALID_JOB_STATE');
  });
});
