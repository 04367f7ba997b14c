import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../../platform/testing/harness.ts';
import { BELL, client, ghz, startQcos } from './testing.ts';

let svc: TestService;
let api: ReturnType<typeof client>;

before(async () => {
  svc = await startQcos();
  api = client(svc, (await svc.newKey({ plan: 'pro' })).key);
});
after(() => svc.close());

const bell = (extra: Record<string, unknown> = {}) => ({ circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', ...extra });

describe('POST /v2/circuits', () => {
  it('runs a Bell circuit with the defaults: 1000 shots, optimization level 2, only 00 and 11', async () => {
    const r = await api.post('/v2/circuits', bell());
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.shots, 1000);
    assert.equal(r.body.backend, 'statevector_simulator');
    assert.equal(r.body.optimization.optimization_level, 2);
    assert.equal(r.body.optimization.original_depth, 3);
    // Taken by a worker at its insert on an idle simulator: answered as submitted, first, no wait.
    assert.equal(r.body.status, 'queued');
    assert.equal(r.body.queue_position, 1);
    assert.equal(r.body.estimated_wait, 0);
    const res = await api.get(`/v2/jobs/${r.body.job_id}/results?wait=20`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body.counts).sort(), ['00', '11']);
    assert.equal(res.body.counts['00'] + res.body.counts['11'], 1000);
    assert.equal(res.body.metadata.optimization_level, 2);
    assert.equal(res.body.metadata.shots, 1000);
    assert.equal(res.body.quality_metrics.fidelity_estimate, 1);
    const job = await api.get(`/v2/jobs/${r.body.job_id}`);
    assert.equal(job.body.status, 'completed');
    assert.ok(job.body.completed_at);
    assert.ok(job.body.simulation_minutes > 0);
    assert.equal(job.body.quantum_minutes, 0);
  });

  it('gives the same counts and memory bit for bit for the same seed_simulator', async () => {
    const run = async () => {
      const r = await api.post('/v2/circuits', { ...bell({ shots: 64 }), circuit: { qasm: ghz(5), format: 'qasm2' }, options: { seed_simulator: 1234, memory: true } });
      return (await api.get(`/v2/jobs/${r.body.job_id}/results?wait=20`)).body;
    };
    const a = await run();
    const b = await run();
    assert.deepEqual(a.counts, b.counts);
    assert.deepEqual(a.memory, b.memory);
    assert.equal(a.memory.length, 64);
    assert.equal(a.metadata.seed_simulator, 1234);
  });

  it('runs on an emulated device with its noise and compares noisy and noiseless distributions', async () => {
    const r = await api.post('/v2/circuits', bell({ backend: 'lattice_line_5', options: { seed_simulator: 3 } }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.ok(r.body.optimization.optimized_gates >= r.body.optimization.original_gates, 'translated to the cx, rz, sx, x basis');
    const res = await api.get(`/v2/jobs/${r.body.job_id}/results?wait=30`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const q = res.body.quality_metrics;
    assert.equal(q.method, 'exact_distributions');
    assert.ok(q.fidelity_estimate > 0.8 && q.fidelity_estimate < 1, `fidelity ${q.fidelity_estimate}`);
    assert.ok(Object.keys(res.body.counts).length > 2, 'readout errors give 01 and 10');
    const job = (await api.get(`/v2/jobs/${r.body.job_id}`)).body;
    assert.ok(job.quantum_minutes > 0);
    assert.equal(job.simulation_minutes, 0);
  });

  it('accepts the SDK export format', async () => {
    const sdk = JSON.stringify({ num_qubits: 2, num_clbits: 2, instructions: [
      { name: 'x', qubits: [1] }, { name: 'measure', qubits: [0], clbits: [0] }, { name: 'measure', qubits: [1], clbits: [1] }] });
    const r = await api.post('/v2/circuits', { circuit: { sdk_json: sdk, format: 'sdk' }, backend: 'statevector_simulator', shots: 10 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const res = await api.get(`/v2/jobs/${r.body.job_id}/results?wait=20`);
    assert.deepEqual(res.body.counts, { '10': 10 });
  });
});

describe('queue_position in the submit answer', () => {
  it('is the place the job took in the backend queue: 1 on an idle device, the queue length after the insert behind others', async () => {
    const key = (await svc.newKey({ plan: 'hybrid' })).key;
    const own = client(svc, key);
    const body = { circuit: { qasm: ghz(11), format: 'qasm2' }, backend: 'lattice_grid_16', shots: 2000, optimization_level: 0 };
    const first = await own.post('/v2/circuits', body);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.queue_position, 1, 'alone on the device, the job is first in its queue');
    const rest = await Promise.all([1, 2, 3].map(() => own.post('/v2/circuits', body)));
    const submitted = [first, ...rest].map((r) => r.body);
    const ended = await Promise.all(submitted.map(async (j) => (await own.get(`/v2/jobs/${j.job_id}?wait=60`)).body));
    for (const j of ended) assert.equal(j.status, 'completed', JSON.stringify(j));
    // The queue is FIFO: recount each job's place from what was queued when it was created.
    const bySeq = [...ended].sort((a, b) => a.started_at.localeCompare(b.started_at));
    for (const s of submitted) {
      const me = ended.find((j) => j.job_id === s.job_id)!;
      const ahead = bySeq.filter((j) => j.started_at < me.started_at && j.started_at > me.created_at).length;
      assert.equal(s.queue_position, ahead + 1, `${s.job_id}: ${JSON.stringify(ended)}`);
    }
    assert.ok(Math.max(...submitted.map((j) => j.queue_position)) >= 2, 'four jobs submitted at once queue behind each other');
  });
});

describe('reduction names', () => {
  it('gives the depth reduction as reduction_percent and depth_reduction_percent in both the submit and the optimize answers', async () => {
    const c = { qasm: ghz(4), format: 'qasm2' };
    const s = await api.post('/v2/circuits', { circuit: c, backend: 'statevector_simulator', shots: 10 });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    const o = await api.post('/v2/optimize', { circuit: c, target_backend: 'statevector_simulator' });
    assert.equal(o.status, 200, JSON.stringify(o.body));
    assert.equal(typeof s.body.optimization.reduction_percent, 'number');
    assert.equal(s.body.optimization.depth_reduction_percent, s.body.optimization.reduction_percent);
    assert.equal(o.body.metrics.reduction_percent, o.body.metrics.depth_reduction_percent);
    assert.equal(o.body.metrics.depth_reduction_percent, s.body.optimization.reduction_percent, 'the same optimizer run gives the same figure');
  });
});

describe('jobs', () => {
  it('lists the account jobs with filters, newest first', async () => {
    const other = client(svc, (await svc.newKey({ plan: 'pro' })).key);
    const a = await other.post('/v2/circuits', bell({ shots: 10 }));
    const b = await other.post('/v2/circuits', bell({ shots: 10, backend: 'mps_simulator' }));
    await other.get(`/v2/jobs/${b.body.job_id}/results?wait=20`);
    await other.get(`/v2/jobs/${a.body.job_id}/results?wait=20`);
    const all = await other.get('/v2/jobs');
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 2);
    assert.equal(all.body.limit, 50);
    assert.deepEqual(all.body.jobs.map((j: { job_id: string }) => j.job_id), [b.body.job_id, a.body.job_id]);
    const mps = await other.get('/v2/jobs?backend=mps_simulator&status=completed');
    assert.deepEqual(mps.body.jobs.map((j: { job_id: string }) => j.job_id), [b.body.job_id]);
    const future = await other.get(`/v2/jobs?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    assert.equal(future.body.total, 0);
    const page = await other.get('/v2/jobs?limit=1&offset=1');
    assert.deepEqual(page.body.jobs.map((j: { job_id: string }) => j.job_id), [a.body.job_id]);
  });

  it('answers 404 for another account job, on every job route', async () => {
    const r = await api.post('/v2/circuits', bell({ shots: 10 }));
    const stranger = client(svc, (await svc.newKey()).key);
    for (const res of [
      await stranger.get(`/v2/jobs/${r.body.job_id}`),
      await stranger.get(`/v2/jobs/${r.body.job_id}/results`),
      await stranger.del(`/v2/jobs/${r.body.job_id}`),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'NOT_FOUND');
      assert.ok(res.body.request_id);
    }
    assert.equal((await api.get(`/v2/jobs/${r.body.job_id}?wait=20`)).body.status, 'completed', 'the stranger cancelled nothing');
  });

  it('cancels a running job, stops its simulation and refunds the unused minutes', async () => {
    const r = await api.post('/v2/circuits', { circuit: { qasm: ghz(22), format: 'qasm2' }, backend: 'lattice_falcon_27', shots: 2000, optimization_level: 0 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    for (let i = 0; i < 200; i++) {
      const s = (await api.get(`/v2/jobs/${r.body.job_id}`)).body.status;
      if (s === 'running') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const c = await api.del(`/v2/jobs/${r.body.job_id}`);
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(c.body.status, 'cancelled');
    assert.equal(c.body.previous_status, 'running');
    assert.ok(c.body.refunded_minutes > 4 && c.body.refunded_minutes <= 5, `refunded ${c.body.refunded_minutes}`);
    const again = await api.del(`/v2/jobs/${r.body.job_id}`);
    assert.equal(again.status, 409);
    const res = await api.get(`/v2/jobs/${r.body.job_id}/results`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.details.status, 'cancelled');
    const health = await api.get('/health');
    assert.equal(health.body.running_jobs, 0, 'the simulation was stopped');
  });
});
