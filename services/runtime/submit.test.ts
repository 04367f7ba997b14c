import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestService } from '../../platform/testing/harness.ts';
import { BELL, client, PER_MINUTE_DEVICE, PER_SHOT_DEVICE, startRuntime } from './testing.ts';

describe('runtime submit', () => {
  let svc: TestService;
  let api: ReturnType<typeof client>;
  before(async () => {
    svc = await startRuntime();
    api = client(svc, (await svc.newKey()).key);
  });
  after(() => svc.close());

  test('a simulator job answers 202 with a zero estimate, needs no approval and runs to completion with its result', async () => {
    const res = await api.post('/api/v1/runtime/jobs', { backend_id: 'statevector_simulator', qasm: BELL, shots: 500 });
    assert.equal(res.status, 202);
    const b = res.body;
    assert.match(b.job_id, /^rtj_/);
    assert.ok(['queued', 'validating', 'optimizing', 'running', 'completed'].includes(b.status), b.status);
    assert.equal(b.estimated_cost_usd, 0);
    assert.equal(b.credits_required, 0);
    assert.equal(b.approval_required, false);
    assert.equal(b.approval_token, null);
    assert.equal(b.cost_basis.model, 'simulator');
    assert.ok(!Number.isNaN(Date.parse(b.created_at)));
    const done = await api.get(`/api/v1/runtime/jobs/${b.job_id}?wait=20`);
    assert.equal(done.status, 200);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.result.shots, 500);
    const counts = done.body.result.counts as Record<string, number>;
    assert.equal(Object.values(counts).reduce((a, n) => a + n, 0), 500);
    assert.deepEqual(Object.keys(counts).sort(), ['00', '11']);
    assert.deepEqual(done.body.billing, { hold_status: 'none', held_usd: 0, charged_usd: 0 });
  });

  test('a per-shot device job is priced from the shots and the price, and waits for approval with a token', async () => {
    const res = await api.post('/api/v1/runtime/jobs', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 1000 });
    assert.equal(res.status, 202);
    const b = res.body;
    assert.equal(b.status, 'awaiting_approval');
    assert.equal(b.approval_required, true);
    assert.match(b.approval_token, /^apv_/);
    // supplier C: $0.30 per task + $0.00035 per shot
    assert.equal(b.estimated_cost_usd, 0.65);
    assert.equal(b.credits_required, 0.65);
    assert.equal(b.cost_basis.model, 'per_shot');
    assert.equal(b.cost_basis.rate_per_shot_usd, 0.00035);
    assert.equal(b.cost_basis.task_fee_usd, 0.3);
    assert.equal(b.cost_basis.shots, 1000);
    assert.ok(b.cost_basis.circuit.gates_2q >= 1, 'the transpiled circuit is counted');
    // It does not run while it waits.
    await new Promise((r) => setTimeout(r, 300));
    const read = await api.get(`/api/v1/runtime/jobs/${b.job_id}`);
    assert.equal(read.body.status, 'awaiting_approval');
    assert.equal('result' in read.body, false);
    const [row] = await svc.db.query<{ n: string | number }>('SELECT count(*) AS n FROM quantum_jobs WHERE id = $1', [b.job_id]);
    assert.equal(Number(row!.n), 0);
  });

  test('a per-minute device job is priced from the gate schedule of the submitted circuit (the catalog list price)', async () => {
    const small = await api.post('/api/v1/runtime/jobs', { backend_id: PER_MINUTE_DEVICE, qasm: BELL, shots: 1000 });
    assert.equal(small.status, 202);
    const basis = small.body.cost_basis;
    assert.equal(basis.model, 'per_qpu_minute');
    assert.equal(basis.rate_per_minute_usd, 96);
    // One CX (350 ns) after an H (sx-based, 35 ns each) and a 4 µs readout: a few µs per shot.
    assert.ok(basis.schedule_us > 4 && basis.schedule_us < 6, String(basis.schedule_us));
    const expected = Math.ceil(((1000 * (basis.schedule_us + basis.rep_delay_us)) / 1e6 / 60) * 96 * 1e6) / 1e6;
    assert.equal(small.body.estimated_cost_usd, expected);
    // More shots cost proportionally more; a deeper circuit costs more per shot.
    const more = await api.post('/api/v1/runtime/jobs', { backend_id: PER_MINUTE_DEVICE, qasm: BELL, shots: 4000 });
    assert.ok(Math.abs(more.body.estimated_cost_usd - 4 * small.body.estimated_cost_usd) < 1e-5);
    const deep = BELL.replace('measure', 'rx(0.3) q[0];\ncx q[0],q[1];\nrx(0.7) q[1];\ncx q[1],q[0];\nmeasure');
    const deeper = await api.post('/api/v1/runtime/jobs', { backend_id: PER_MINUTE_DEVICE, qasm: deep, shots: 1000 });
    assert.ok(deeper.body.cost_basis.schedule_us > basis.schedule_us);
    assert.ok(deeper.body.estimated_cost_usd > small.body.estimated_cost_usd);
  });

  test('the async variant answers 202 validating at once, then prices the job', async () => {
    const res = await api.post('/api/v1/runtime/jobs/async', { backend_id: PER_SHOT_DEVICE, qasm: BELL, shots: 200 });
    assert.equal(res.status, 202);
    assert.equal(res.body.status, 'validating');
    assert.equal(res.body.estimated_cost_usd, null);
    assert.equal(res.body.cost_basis, null);
    assert.equal(res.body.approval_required, true);
    assert.match(res.body.approval_token, /^apv_/);
    let read;
    for (let i = 0; i < 100; i++) {
      read = await api.get(`/api/v1/runtime/jobs/${res.body.job_id}`);
      if (read.body.status !== 'validating') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(read!.body.status, 'awaiting_approval');
    assert.equal(read!.body.mode, 'async');
    assert.equal(read!.body.estimated_cost_usd, 0.37);
    assert.equal(read!.body.cost_basis.model, 'per_shot');
  });

  test('an async simulator job runs without approval', async () => {
    const res = await api.post('/api/v1/runtime/jobs/async', { backend_id: 'statevector_simulator', qasm: BELL, shots: 100 });
    assert.equal(res.status, 202);
    assert.equal(res.body.approval_required, false);
    let read;
    for (let i = 0; i < 200; i++) {
      read = await api.get(`/api/v1/runtime/jobs/${res.body.job_id}?wait=1`);
      if (read.body.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(read!.body.status, 'completed');
    assert.equal(read!.body.result.shots, 100);
  });

  test('an async job whose circuit is refused ends failed with the reason and holds nothing', async () => {
    const res = await api.post('/api/v1/runtime/jobs/async', { backend_id: PER_SHOT_DEVICE, qasm: 'OPENQASM 2.0;\nqreg q[2];\nfoo q[0];\n', shots: 10 });
    assert.equal(res.status, 202);
    let read;
    for (let i = 0; i < 100; i++) {
      read = await api.get(`/api/v1/runtime/jobs/${res.body.job_id}`);
      if (read.body.status !== 'validating') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(read!.body.status, 'failed');
    assert.equal(read!.body.error.code, 'INVALID_CIRCUIT');
    assert.equal(read!.body.billing.hold_status, 'none');
    const approve = await api.post(`/api/v1/runtime/jobs/${res.body.job_id}/approve?approval_token=${res.body.approval_token}`);
    assert.equal(approve.status, 409);
  });

  test('the health and documentation routes answer', async () => {
    assert.deepEqual((await api.get('/health')).body, { status: 'ok' });
    const doc = await api.get('/openapi.json');
    assert.equal(doc.status, 200);
    for (const p of ['/api/v1/runtime/jobs', '/api/v1/runtime/jobs/async', '/api/v1/runtime/jobs/{job_id}', '/api/v1/runtime/jobs/{job_id}/approve', '/api/v1/runtime/jobs/{job_id}/artifacts', '/api/v1/runtime/evidence/keys']) {
      assert.ok(doc.body.paths[p], p);
    }
  });
});
