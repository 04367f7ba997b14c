import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { BELL, client, startQcos } from './testing.ts';

let svc: TestService;
let api: ReturnType<typeof client>;
let accountId: string;

before(async () => {
  svc = await startQcos();
  const k = await svc.newKey({ plan: 'pro' });
  accountId = k.accountId;
  api = client(svc, k.key);
});
after(() => svc.close());

const jobCount = async () => Number((await svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM quantum_jobs WHERE account_id = $1', [accountId]))[0]!.n);

function assertShape(body: any, code: string) {
  assert.equal(body.error.code, code, JSON.stringify(body));
  assert.equal(typeof body.error.message, 'string');
  assert.equal(typeof body.error.details, 'object');
  assert.match(body.request_id, /^req_/);
}

describe('refused requests change nothing', () => {
  it('answers 401 UNAUTHORIZED without a key or with a wrong one', async () => {
    const none = await call(`${svc.url}/v2/jobs`);
    assert.equal(none.status, 401);
    assertShape(none.body, 'UNAUTHORIZED');
    const wrong = await call(`${svc.url}/v2/jobs`, { headers: { 'x-api-key': 'qcos_notarealkey000000000000000000' } });
    assert.equal(wrong.status, 401);
    const bearer = await call(`${svc.url}/v2/jobs`, { headers: { authorization: 'Bearer qcos_x' } });
    assert.equal(bearer.status, 401, 'interface 1 reads X-API-Key only');
  });

  it('answers 400 INVALID_REQUEST to malformed JSON, wrong types, unknown fields and out-of-range values', async () => {
    const cases: Array<[string, unknown]> = [
      ['shots as a string', { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: '100' }],
      ['optimization level 4', { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', optimization_level: 4 }],
      ['no circuit', { backend: 'statevector_simulator' }],
      ['bad format', { circuit: { qasm: BELL, format: 'qasm9' }, backend: 'statevector_simulator' }],
      ['seed as a float', { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', options: { seed_simulator: 1.5 } }],
      ['zero shots', { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: 0 }],
    ];
    for (const [what, body] of cases) {
      const r = await api.post('/v2/circuits', body);
      assert.equal(r.status, 400, what);
      assertShape(r.body, 'INVALID_REQUEST');
    }
    const raw = await call(`${svc.url}/v2/circuits`, { method: 'POST', rawBody: '{"circuit": ', headers: { 'x-api-key': (await svc.newKey()).key } });
    assert.equal(raw.status, 400);
    assertShape(raw.body, 'INVALID_REQUEST');
    const huge = await api.post('/v2/circuits', { circuit: { qasm: 'x'.repeat(1_100_000), format: 'qasm2' }, backend: 'statevector_simulator' });
    assert.equal(huge.status, 400);
    assert.equal(await jobCount(), 0);
  });

  it('answers 400 INVALID_BACKEND to an unknown backend', async () => {
    const r = await api.post('/v2/circuits', { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'ibm_nowhere' });
    assert.equal(r.status, 400);
    assertShape(r.body, 'INVALID_BACKEND');
    assert.equal(await jobCount(), 0);
  });

  it('answers 400 INVALID_CIRCUIT with the parser line and column to invalid QASM', async () => {
    const bad = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nh q[0]\ncx q[0],q[1];\n';
    const r = await api.post('/v2/circuits', { circuit: { qasm: bad, format: 'qasm2' }, backend: 'statevector_simulator' });
    assert.equal(r.status, 400);
    assertShape(r.body, 'INVALID_CIRCUIT');
    assert.match(r.body.error.message, /line \d+, column \d+/);
    assert.equal(typeof r.body.error.details.line, 'number');
    assert.equal(typeof r.body.error.details.column, 'number');
    const undeclared = await api.post('/v2/circuits', { circuit: { qasm: 'OPENQASM 2.0;\nqreg q[1];\nfoo q[0];\n', format: 'qasm2' }, backend: 'statevector_simulator' });
    assert.equal(undeclared.status, 400);
    assert.equal(undeclared.body.error.details.line, 3);
    const mismatch = await api.post('/v2/circuits', { circuit: { qasm: BELL, format: 'qasm3' }, backend: 'statevector_simulator' });
    assert.equal(mismatch.body.error.code, 'INVALID_CIRCUIT');
    assert.equal(await jobCount(), 0);
  });

  it('answers 400 INVALID_CIRCUIT to a circuit wider than the backend', async () => {
    const six = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[6];\ncreg c[6];\nh q[5];\nmeasure q -> c;\n';
    const r = await api.post('/v2/circuits', { circuit: { qasm: six, format: 'qasm2' }, backend: 'lattice_line_5' });
    assert.equal(r.status, 400);
    assertShape(r.body, 'INVALID_CIRCUIT');
    assert.match(r.body.error.message, /6 qubits/);
    const sim = await api.post('/v2/simulate', { circuit: { qasm: six.replace('q[6]', 'q[14]').replace('c[6]', 'c[14]'), format: 'qasm2' }, method: 'density_matrix' });
    assert.equal(sim.status, 400);
    assert.equal(await jobCount(), 0);
  });

  it('answers 404 NOT_FOUND in the interface 1 shape to unknown jobs and routes', async () => {
    const job = await api.get('/v2/jobs/job_000000000000000000000000');
    assert.equal(job.status, 404);
    assertShape(job.body, 'NOT_FOUND');
    const route = await api.get('/v2/nothing');
    assert.equal(route.status, 404);
    assertShape(route.body, 'NOT_FOUND');
  });

  it('refuses webhook URLs that are not http(s)', async () => {
    const r = await api.post('/v2/webhooks', { url: 'ftp://example.test/hook', events: ['job.completed'], secret: 's3cret' });
    assert.equal(r.status, 400);
    assertShape(r.body, 'INVALID_REQUEST');
    const ev = await api.post('/v2/webhooks', { url: 'http://example.test/hook', events: ['job.started'], secret: 's3cret' });
    assert.equal(ev.status, 400);
  });

  it('serves its documentation', async () => {
    const spec = await call(`${svc.url}/openapi.json`);
    assert.equal(spec.status, 200);
    for (const p of ['/v2/circuits', '/v2/jobs/{job_id}', '/v2/jobs/{job_id}/results', '/v2/jobs', '/v2/backends', '/v2/backends/{backend_id}', '/v2/optimize', '/v2/simulate', '/v2/account/usage', '/v2/account/quotas', '/v2/webhooks']) {
      assert.ok(spec.body.paths[p], p);
    }
    assert.equal((await call(`${svc.url}/docs`)).status, 200);
    assert.equal((await call(`${svc.url}/redoc`)).status, 200);
    const health = await call(`${svc.url}/health`);
    assert.equal(health.body.status, 'healthy');
  });
});
