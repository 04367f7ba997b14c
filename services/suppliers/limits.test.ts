/** Authentication, the plan limits of the spec's table, circuit errors, and bad input that changes nothing. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBalance } from '../../platform/billing/index.ts';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { BELL, client, credit, ghz, startSuppliers } from './testing.ts';

let svc: TestService;
before(async () => {
  svc = await startSuppliers();
});
after(() => svc.close());

const ION = { provider: 'lattice_ion', target: 'lattice_ion_11' };

/** Rows that a refused request must not have changed. */
async function snapshot(accountId: string) {
  const n = async (sql: string) => Number((await svc.db.query<{ n: string }>(sql, [accountId]))[0]!.n);
  return {
    jobs: await n('SELECT count(*) AS n FROM supplier_jobs WHERE account_id = $1'),
    quantum: await n('SELECT count(*) AS n FROM quantum_jobs WHERE account_id = $1'),
    ledger: await n('SELECT count(*) AS n FROM billing_ledger WHERE account_id = $1'),
    holds: await n('SELECT count(*) AS n FROM billing_holds WHERE account_id = $1'),
    jobSlots: await n("SELECT COALESCE(sum(value), 0) AS n FROM usage_counters WHERE account_id = $1 AND counter LIKE 'jobs_day:%'"),
    balance: (await getBalance(svc.db, accountId)).availableMicros,
  };
}

describe('authentication', () => {
  test('no key answers 401 AUTH_REQUIRED, a wrong key 401 AUTH_INVALID, in the interface 2 error body', async () => {
    const none = await call(`${svc.url}/api/v1/supplier_b_quantum/backends`);
    assert.equal(none.status, 401);
    assert.deepEqual(Object.keys(none.body).sort(), ['detail', 'error_code', 'request_id', 'supplier']);
    assert.equal(none.body.error_code, 'AUTH_REQUIRED');
    assert.equal(none.body.supplier, 'supplier_b_quantum');
    const wrong = await client(svc, 'qsup_notakey').get('/api/v1/backends/all');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error_code, 'AUTH_INVALID');
    assert.equal(wrong.body.supplier, null);
    const legacy = await call(`${svc.url}/status/x`);
    assert.equal(legacy.body.supplier, 'hpc_gpu');
  });

  test('X-API-Key and Authorization: Bearer both work; a key of another service does not', async () => {
    const k = await svc.newKey({ plan: 'pro' });
    assert.equal((await client(svc, k.key, 'bearer').get('/api/v1/tiers')).status, 200);
    assert.equal((await client(svc, k.key).get('/api/v1/tiers')).status, 200);
    const { createKey } = await import('../../platform/identity/keys.ts');
    const foreign = await createKey(svc.db, { accountId: k.accountId, service: 'qcos', prefix: 'qcos' });
    assert.equal((await client(svc, foreign.key).get('/api/v1/tiers')).body.error_code, 'AUTH_INVALID');
  });
});

describe('plan limits', () => {
  test('free: 10 requests per minute with X-RateLimit headers, then 429 RATE_LIMITED with Retry-After', async () => {
    svc.clock.set('2026-11-26T10:00:10Z');
    try {
      const k = await svc.newKey({ plan: 'free' });
      const c = client(svc, k.key);
      for (let i = 1; i <= 10; i++) {
        const r = await c.get('/api/v1/credits/balance');
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('x-ratelimit-limit'), '10');
        assert.equal(r.headers.get('x-ratelimit-remaining'), String(10 - i));
        assert.equal(r.headers.get('x-ratelimit-reset'), String(Date.parse('2026-11-26T10:01:00Z') / 1000));
      }
      const over = await c.get('/api/v1/credits/balance');
      assert.equal(over.status, 429);
      assert.equal(over.body.error_code, 'RATE_LIMITED');
      assert.equal(over.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(over.headers.get('retry-after'), '50');
      svc.clock.set('2026-11-26T10:01:00Z');
      assert.equal((await c.get('/api/v1/credits/balance')).status, 200, 'a new minute opens a new window');
    } finally {
      svc.clock.set(new Date());
    }
  });

  test('pro allows 60 and enterprise 300 requests per minute', async () => {
    for (const [plan, limit] of [['pro', '60'], ['enterprise', '300'], ['ENTERPRISE', '300']] as const) {
      const k = await svc.newKey({ plan: plan.toLowerCase() });
      assert.equal((await client(svc, k.key).get('/api/v1/tiers')).headers.get('x-ratelimit-limit'), limit);
    }
  });

  test('free: 10 jobs per day per key, the 11th answers 429 JOB_LIMIT_EXCEEDED and writes nothing', async () => {
    const k = await svc.newKey({ plan: 'free' });
    const c = client(svc, k.key);
    svc.clock.set('2026-11-26T11:00:00Z');
    try {
      for (let i = 0; i < 10; i++) {
        // spread over minutes so that the request limit does not answer first
        svc.clock.advance(60_000);
        assert.equal((await c.post('/execute', { qasm: BELL, shots: 10 })).status, 201);
      }
      svc.clock.advance(60_000);
      const before = await snapshot(k.accountId);
      const over = await c.post('/execute', { qasm: BELL, shots: 10 });
      assert.equal(over.status, 429);
      assert.equal(over.body.error_code, 'JOB_LIMIT_EXCEEDED');
      assert.deepEqual(await snapshot(k.accountId), before);
      svc.clock.set('2026-11-27T00:00:30Z');
      assert.equal((await c.post('/execute', { qasm: BELL, shots: 10 })).status, 201, 'the next UTC day has new jobs');
    } finally {
      svc.clock.set(new Date());
    }
  });

  test('QUBITS_EXCEEDED: above the plan (free 20, pro 50) or above the target', async () => {
    const free = client(svc, (await svc.newKey({ plan: 'free' })).key);
    const plan = await free.post('/execute', { qasm: ghz(21), shots: 10 });
    assert.equal(plan.status, 400);
    assert.equal(plan.body.error_code, 'QUBITS_EXCEEDED');
    assert.equal(plan.body.supplier, 'hpc_gpu');
    assert.match(plan.body.detail, /free plan allows 20/);
    const pro = client(svc, (await svc.newKey({ plan: 'pro' })).key);
    const device = await pro.post('/api/v1/supplier_a_quantum/execute', { qasm: ghz(12), ...ION, shots: 10 });
    assert.equal(device.status, 400);
    assert.equal(device.body.error_code, 'QUBITS_EXCEEDED');
    assert.match(device.body.detail, /lattice_ion_11 has 11/);
    const est = await pro.post('/api/v1/supplier_b_quantum/estimate', { qasm: ghz(28), backend: 'lattice_falcon_27', shots: 10 });
    assert.equal(est.status, 200, 'an estimate prices any circuit; only execution is limited');
  });

  test('SHOTS_EXCEEDED above the target\'s maximum', async () => {
    const k = await svc.newKey({ plan: 'enterprise' });
    await credit(svc, k.accountId, 1000);
    const r = await client(svc, k.key).post('/api/v1/supplier_a_quantum/execute', { qasm: BELL, ...ION, shots: 10_001 });
    assert.equal(r.status, 400);
    assert.equal(r.body.error_code, 'SHOTS_EXCEEDED');
    assert.equal(r.body.max_shots, 10_000);
  });

  test('SHOTS_EXCEEDED names the supplier\'s own limit on every route that takes shots, execute and estimate, at any size', async () => {
    const k = await svc.newKey({ plan: 'enterprise' });
    await credit(svc, k.accountId, 1000);
    const e = client(svc, k.key);
    const C_QPU = 'arn:lattice:supplier-c:::device/qpu/lattice/lattice_grid_16';
    const cases: Array<[string, string, Record<string, unknown>, number, string]> = [];
    for (const shots of [100_001, 2_000_000]) {
      cases.push(
        ['A execute', '/api/v1/supplier_a_quantum/execute', { qasm: BELL, ...ION, shots }, 10_000, 'supplier_a_quantum'],
        ['A estimate', '/api/v1/supplier_a_quantum/estimate', { qasm: BELL, ...ION, shots }, 10_000, 'supplier_a_quantum'],
        ['B execute', '/api/v1/supplier_b_quantum/execute', { qasm: BELL, backend: 'lattice_line_5', shots }, 100_000, 'supplier_b_quantum'],
        ['B estimate', '/api/v1/supplier_b_quantum/estimate', { qasm: BELL, backend: 'lattice_line_5', shots }, 100_000, 'supplier_b_quantum'],
        ['C execute', '/api/v1/supplier_c/execute', { qasm: BELL, device_arn: C_QPU, shots, storage_bucket: 'results', storage_prefix: 'x' }, 100_000, 'supplier_c'],
        ['C estimate', '/api/v1/supplier_c/estimate', { qasm: BELL, device_arn: C_QPU, shots }, 100_000, 'supplier_c'],
      );
    }
    cases.push(
      ['legacy execute', '/execute', { qasm: BELL, shots: 2_000_000 }, 1_000_000, 'hpc_gpu'],
      ['batch', '/api/v1/batch', { circuits: [{ qasm: BELL, shots: 10 }, { qasm: BELL, shots: 2_000_000 }] }, 1_000_000, 'hpc_gpu'],
      ['estimate across targets', '/api/v1/estimate', { qasm: BELL, shots: 2_000_000 }, 1_000_000, null as unknown as string],
    );
    for (const [name, path, body, max, supplier] of cases) {
      const r = await e.post(path, body);
      assert.equal(r.status, 400, `${name}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error_code, 'SHOTS_EXCEEDED', name);
      assert.equal(r.body.max_shots, max, name);
      assert.equal(r.body.supplier, supplier, name);
      assert.match(r.body.detail, new RegExp(`at most ${max}|more than ${max}`), `${name}: the limit is named`);
    }
    // At the limit the same routes answer.
    assert.equal((await e.post('/api/v1/supplier_a_quantum/estimate', { qasm: BELL, ...ION, shots: 10_000 })).status, 200);
    assert.equal((await e.post('/api/v1/supplier_b_quantum/estimate', { qasm: BELL, backend: 'lattice_line_5', shots: 100_000 })).status, 200);
    const some = await e.post('/api/v1/estimate', { qasm: BELL, shots: 50_000 });
    assert.equal(some.status, 200, 'targets that allow it are priced; the others say why not');
    assert.ok(some.body.estimates.some((x: { runnable: boolean }) => !x.runnable));
    const jobs = await e.get('/api/v1/jobs/history');
    assert.equal(jobs.body.total, 0, 'no refused request left a job');
  });

  test('CIRCUIT_INVALID names the line and column; gates without a definition are refused', async () => {
    const c = client(svc, (await svc.newKey({ plan: 'pro' })).key);
    const r = await c.post('/api/v1/supplier_b_quantum/execute', { qasm: 'OPENQASM 2.0;\nqreg q[2];\nh q[0]\ncx q[0],q[1];', backend: 'lattice_line_5', shots: 10 });
    assert.equal(r.status, 400);
    assert.equal(r.body.error_code, 'CIRCUIT_INVALID');
    assert.equal(r.body.supplier, 'supplier_b_quantum');
    assert.equal(r.body.line, 4);
    const opaque = await c.post('/execute', { qasm: 'OPENQASM 2.0;\nopaque magic a;\nqreg q[1];\nmagic q[0];', shots: 10 });
    assert.equal(opaque.status, 400);
    assert.equal(opaque.body.error_code, 'CIRCUIT_INVALID');
  });

  test('a job costing more than the balance answers 403 INSUFFICIENT_CREDITS and holds nothing', async () => {
    const k = await svc.newKey({ plan: 'pro' });
    await credit(svc, k.accountId, 0.5);
    const before = await snapshot(k.accountId);
    const r = await client(svc, k.key).post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: 'arn:lattice:supplier-c:::device/qpu/lattice/lattice_grid_16', shots: 1000 });
    assert.equal(r.status, 403);
    assert.equal(r.body.error_code, 'INSUFFICIENT_CREDITS');
    assert.deepEqual(await snapshot(k.accountId), before);
  });
});

describe('bad input changes nothing', () => {
  let key: string;
  let accountId: string;
  before(async () => {
    const k = await svc.newKey({ plan: 'enterprise' });
    key = k.key;
    accountId = k.accountId;
    await credit(svc, accountId, 50);
  });

  test('malformed JSON, wrong types, missing fields, unknown enum values and huge bodies', async () => {
    const c = client(svc, key);
    const before = await snapshot(accountId);
    const cases: Array<[string, () => Promise<{ status: number; body: any }>, number, string]> = [
      ['malformed JSON', () => c.raw('/api/v1/supplier_a_quantum/execute', '{"qasm": '), 400, 'INVALID_PARAMETERS'],
      ['shots as text', () => c.post('/api/v1/supplier_b_quantum/execute', { qasm: BELL, backend: 'lattice_line_5', shots: '100' }), 422, 'VALIDATION_ERROR'],
      ['negative shots', () => c.post('/execute', { qasm: BELL, shots: -1 }), 422, 'VALIDATION_ERROR'],
      ['qasm as number', () => c.post('/execute', { qasm: 42 }), 422, 'VALIDATION_ERROR'],
      ['missing device', () => c.post('/api/v1/supplier_c/execute', { qasm: BELL, shots: 1 }), 422, 'VALIDATION_ERROR'],
      ['unknown backend', () => c.post('/api/v1/supplier_b_quantum/execute', { qasm: BELL, backend: 'nope', shots: 1 }), 400, 'INVALID_PARAMETERS'],
      ['bad job id', () => c.post('/execute', { qasm: BELL, job_id: 'a b/c' }), 422, 'VALIDATION_ERROR'],
      ['huge body', () => c.post('/execute', { qasm: BELL, pad: 'x'.repeat(1_100_000) }), 400, 'INVALID_PARAMETERS'],
      ['array body', () => c.raw('/api/v1/validate', '[1,2]'), 422, 'VALIDATION_ERROR'],
      ['unknown history status', () => c.get('/api/v1/jobs/history?status=done'), 422, 'VALIDATION_ERROR'],
      ['unknown provider', () => c.get('/api/v1/jobs/history?provider=elsewhere'), 422, 'VALIDATION_ERROR'],
    ];
    for (const [name, run, status, code] of cases) {
      const r = await run();
      assert.equal(r.status, status, `${name}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error_code, code, name);
      assert.equal(typeof r.body.detail, 'string', name);
      assert.equal(typeof r.body.request_id, 'string', name);
      assert.ok(!JSON.stringify(r.body).includes('    at '), `${name}: no stack trace`);
    }
    assert.deepEqual(await snapshot(accountId), before);
  });

  test("unknown ids and another account's ids answer 404 and change nothing", async () => {
    const c = client(svc, key);
    const other = await svc.newKey({ plan: 'enterprise' });
    await credit(svc, other.accountId, 10);
    const o = client(svc, other.key);
    const job = await o.post('/api/v1/supplier_b_quantum/execute', { qasm: BELL, backend: 'statevector_simulator', shots: 10 });
    assert.equal(job.status, 201);
    const before = await snapshot(accountId);
    const otherBefore = await snapshot(other.accountId);
    for (const path of [
      `/api/v1/supplier_b_quantum/status/${job.body.job_id}`,
      `/api/v1/supplier_a_quantum/status/${job.body.job_id}`,
      '/api/v1/supplier_b_quantum/status/job_unknown',
      `/api/v1/provenance/${job.body.job_id}`,
      '/api/v1/batch/batch_unknown/status',
    ]) {
      const r = await c.get(path);
      assert.equal(r.status, 404, path);
      assert.ok(['JOB_NOT_FOUND', 'NOT_FOUND'].includes(r.body.error_code), path);
    }
    const del = await c.del(`/api/v1/supplier_b_quantum/jobs/${job.body.job_id}`);
    assert.equal(del.status, 404);
    assert.equal(del.body.error_code, 'JOB_NOT_FOUND');
    assert.deepEqual(await snapshot(accountId), before);
    assert.deepEqual(await snapshot(other.accountId), otherBefore);
    const route = await c.get('/api/v1/nothing-here');
    assert.equal(route.status, 404);
    assert.equal(route.body.error_code, 'NOT_FOUND');
  });
});

describe('concurrency and documentation', () => {
  test('20 concurrent executions against credits covering 5 hold exactly 5; the balance never goes below zero', async () => {
    const k = await svc.newKey({ plan: 'enterprise' });
    // Each job holds its list price: $0.30 + 10 x $0.03 = $0.60, so $3 covers exactly 5.
    await credit(svc, k.accountId, 3);
    const c = client(svc, k.key);
    const answers = await Promise.all(Array.from({ length: 20 }, () => c.post('/api/v1/supplier_a_quantum/execute', { qasm: BELL, ...ION, shots: 10 })));
    assert.equal(answers.filter((a) => a.status === 201).length, 5);
    assert.ok(answers.filter((a) => a.status !== 201).every((a) => a.status === 403 && a.body.error_code === 'INSUFFICIENT_CREDITS'));
    const s = await snapshot(k.accountId);
    assert.equal(s.jobs, 5);
    assert.equal(s.holds, 5);
    assert.equal(s.balance, 0);
  });

  test('concurrent submissions never pass the jobs per day of the plan', async () => {
    const k = await svc.newKey({ plan: 'pro' });
    const day = new Date().toISOString().slice(0, 10);
    await svc.db.query("INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ($1, 'suppliers', $2, $3, 95)", [k.accountId, `jobs_day:${k.keyId}`, day]);
    const c = client(svc, k.key);
    const answers = await Promise.all(Array.from({ length: 10 }, () => c.post('/execute', { qasm: BELL, shots: 5 })));
    assert.equal(answers.filter((a) => a.status === 201).length, 5);
    assert.equal(answers.filter((a) => a.status === 429 && a.body.error_code === 'JOB_LIMIT_EXCEEDED').length, 5);
    assert.equal((await snapshot(k.accountId)).jobSlots, 100);
  });

  test('/openapi.json describes the routes of both interfaces', async () => {
    const r = await call(`${svc.url}/openapi.json`);
    assert.equal(r.status, 200);
    for (const p of ['/api/v1/supplier_a_quantum/execute', '/api/v1/supplier_c/status/{task_id}', '/execute', '/status/{job_id}', '/health', '/api/v1/suppliers/status',
      '/api/v1/backends/all', '/api/v1/validate', '/api/v1/provenance/{job_id}', '/api/v1/reports/chargeback', '/api/v1/batch/{batch_id}/status', '/api/v1/supplier_b_quantum/jobs/{job_id}']) {
      assert.ok(p in r.body.paths, p);
    }
  });
});
