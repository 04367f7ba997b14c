import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestService } from '../../platform/testing/harness.ts';
import { BELL, client, ghz, startQcos } from './testing.ts';

let svc: TestService;

before(async () => {
  svc = await startQcos();
});
after(() => svc.close());

const bell = (extra: Record<string, unknown> = {}) => ({ circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: 10, ...extra });
const jobCount = async (accountId: string) =>
  Number((await svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM quantum_jobs WHERE account_id = $1', [accountId]))[0]!.n);

describe('rate limits', () => {
  it('answers 429 RATE_LIMITED past 60 requests in a minute on the free plan, and again in the next minute', async () => {
    svc.clock.set('2026-11-24T10:00:05Z');
    const api = client(svc, (await svc.newKey({ plan: 'free' })).key);
    for (let i = 0; i < 60; i++) assert.equal((await api.get('/v2/account/quotas')).status, 200, `request ${i + 1}`);
    const r = await api.get('/v2/account/quotas');
    assert.equal(r.status, 429);
    assert.equal(r.body.error.code, 'RATE_LIMITED');
    assert.equal(r.headers.get('retry-after'), '55');
    svc.clock.set('2026-11-24T10:01:00Z');
    assert.equal((await api.get('/v2/account/quotas')).status, 200);
  });

  it('answers 429 past 1000 requests in a day on the free plan', async () => {
    const { key, accountId, keyId } = await svc.newKey({ plan: 'free' });
    svc.clock.set('2026-11-24T12:00:00Z');
    // The day's 1000 requests, as the cluster's limit windows hold them (platform/limits).
    await svc.db.query('INSERT INTO limit_windows (subject, window_ms, window_start, taken, granted) VALUES ($1, 86400000, $2, 1000, 0)', [`qcos:key:${keyId}`, Date.parse('2026-11-24T00:00:00Z')]);
    const r = await client(svc, key).get('/v2/account/quotas');
    assert.equal(r.status, 429);
    assert.equal(r.body.error.details.window, 'day');
    svc.clock.set('2026-11-25T00:00:01Z');
    assert.equal((await client(svc, key).get('/v2/account/quotas')).status, 200);
  });
});

describe('quotas', () => {
  it('reports the plan quotas and features', async () => {
    svc.clock.set('2026-11-24T13:00:00Z');
    const r = await client(svc, (await svc.newKey({ plan: 'PRO' })).key).get('/v2/account/quotas');
    assert.equal(r.status, 200);
    assert.equal(r.body.plan, 'pro');
    assert.deepEqual(r.body.quotas, {
      quantum_minutes_monthly: 100, simulation_minutes_monthly: 600, optimization_credits_monthly: 1000, max_qubits: 30,
      max_circuit_depth: 10000, max_shots: 100000, concurrent_jobs: 10, requests_per_minute: 300, requests_per_day: 10000,
    });
    assert.equal(r.body.features.multi_backend, true);
  });

  it('refuses with 429 QUOTA_EXCEEDED when the quantum minutes are used up, before any work and charging nothing', async () => {
    svc.clock.set('2026-11-24T14:00:00Z');
    const { key, accountId } = await svc.newKey({ plan: 'free' });
    const api = client(svc, key);
    // 10 quantum minutes used this month by an earlier job.
    await svc.db.query(
      `INSERT INTO quantum_jobs (id, service, account_id, kind, backend, status, input, minutes_kind, hold_minutes, reserved_minutes, charged_minutes, created_at, updated_at, finished_at)
       VALUES ('job_used', 'qcos', $1, 'run', 'lattice_line_5', 'completed', '{"task":{"shots":1}}', 'quantum', 10, 10, 10, $2, $2, $2)`,
      [accountId, new Date('2026-11-02T00:00:00Z')],
    );
    const before = await jobCount(accountId);
    const r = await api.post('/v2/circuits', bell({ backend: 'lattice_line_5' }));
    assert.equal(r.status, 429);
    assert.equal(r.body.error.code, 'QUOTA_EXCEEDED');
    assert.equal(r.body.error.details.quota, 'minutes');
    assert.equal(await jobCount(accountId), before, 'no job was written');
    const usage = (await api.get('/v2/account/usage')).body;
    assert.equal(usage.quantum_minutes.used, 10);
    assert.equal(usage.quantum_minutes.included, 10);
    // Simulators count simulation minutes instead, which are left.
    assert.equal((await api.post('/v2/circuits', bell())).status, 201);
    // The next month starts afresh.
    svc.clock.set('2026-12-01T00:00:00Z');
    assert.equal((await api.post('/v2/circuits', bell({ backend: 'lattice_line_5' }))).status, 201);
  });

  it('refuses more concurrent jobs than the plan allows', async () => {
    svc.clock.set('2026-11-24T15:00:00Z');
    const { key, accountId } = await svc.newKey({ plan: 'free' });
    for (const id of ['job_c1', 'job_c2']) {
      await svc.db.query(
        `INSERT INTO quantum_jobs (id, service, account_id, kind, backend, status, input, owner, lease_until, created_at, updated_at)
         VALUES ($1, 'qcos', $2, 'run', 'statevector_simulator', 'running', '{"task":{"shots":1}}', 'another-process', now() + interval '1 hour', $3, $3)`,
        [id, accountId, svc.clock.now()],
      );
    }
    const r = await client(svc, key).post('/v2/circuits', bell());
    assert.equal(r.status, 429);
    assert.equal(r.body.error.details.quota, 'concurrent_jobs');
    await svc.db.query(`DELETE FROM quantum_jobs WHERE id IN ('job_c1', 'job_c2')`);
  });

  it('refuses optimize calls past the month credits', async () => {
    svc.clock.set('2026-11-24T16:00:00Z');
    const { key, accountId } = await svc.newKey({ plan: 'free' });
    await svc.db.query(
      `INSERT INTO quantum_jobs (id, service, account_id, kind, backend, status, input, credits, created_at, updated_at)
       VALUES ('job_credits', 'qcos', $1, 'optimize', 'lattice_line_5', 'completed', '{"task":{"shots":0}}', 100, $2, $2)`,
      [accountId, svc.clock.now()],
    );
    const r = await client(svc, key).post('/v2/optimize', { circuit: { qasm: BELL, format: 'qasm2' }, target_backend: 'lattice_line_5' });
    assert.equal(r.status, 429);
    assert.equal(r.body.error.details.quota, 'credits');
  });

  it('enforces the plan caps on qubits, shots and depth with 403 FORBIDDEN', async () => {
    svc.clock.set('2026-11-24T17:00:00Z');
    const api = client(svc, (await svc.newKey({ plan: 'free' })).key);
    const wide = await api.post('/v2/circuits', { circuit: { qasm: ghz(21), format: 'qasm2' }, backend: 'statevector_simulator' });
    assert.equal(wide.status, 403);
    assert.equal(wide.body.error.code, 'FORBIDDEN');
    const shots = await api.post('/v2/circuits', bell({ shots: 10_001 }));
    assert.equal(shots.status, 403);
    const deep = ['OPENQASM 2.0;', 'include "qelib1.inc";', 'qreg q[1];', ...Array.from({ length: 1001 }, () => 'x q[0];')].join('\n');
    const d = await api.post('/v2/circuits', { circuit: { qasm: deep, format: 'qasm2' }, backend: 'statevector_simulator' });
    assert.equal(d.status, 403);
    assert.equal(d.body.error.details.max_circuit_depth, 1000);
  });
});

describe('usage', () => {
  it('measures simulation minutes, jobs and api calls of the month from the jobs', async () => {
    svc.clock.set('2026-11-24T18:00:00Z');
    const api = client(svc, (await svc.newKey({ plan: 'pro' })).key);
    const r = await api.post('/v2/circuits', bell());
    const done = await api.get(`/v2/jobs/${r.body.job_id}?wait=20`);
    const u = (await api.get('/v2/account/usage')).body;
    assert.equal(u.plan, 'pro');
    assert.equal(u.billing_period.start, '2026-11-01T00:00:00.000Z');
    assert.equal(u.billing_period.end, '2026-12-01T00:00:00.000Z');
    assert.equal(u.simulation_minutes.used, done.body.simulation_minutes);
    assert.ok(u.simulation_minutes.used > 0);
    assert.equal(u.simulation_minutes.included, 600);
    assert.equal(u.api_calls.used, 3, 'submit, job and this usage call');
    assert.equal(u.estimated_bill, 0, 'simulators cost no money');
  });
});
