/** Unknown fields are refused with a 400 INVALID_REQUEST naming them, never dropped (issue: a misspelt `shot` ran 1000 shots). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { BELL, client, startQcos } from './testing.ts';

let svc: TestService;
let api: ReturnType<typeof client>;
let accountId: string;
let key: string;

before(async () => {
  svc = await startQcos();
  const k = await svc.newKey({ plan: 'pro' });
  accountId = k.accountId;
  key = k.key;
  api = client(svc, k.key);
});
after(() => svc.close());

const jobCount = async () => Number((await svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM quantum_jobs WHERE account_id = $1', [accountId]))[0]!.n);
const circuit = { qasm: BELL, format: 'qasm2' };

function assertRefused(r: { status: number; body: any }, field: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'INVALID_REQUEST');
  assert.match(r.body.error.message, field);
  assert.equal(typeof r.body.error.details, 'object');
  assert.match(r.body.request_id, /^req_/);
}

describe('unknown fields', () => {
  it('refuses a misspelt shots with a guess at the meant field, and runs nothing', async () => {
    const r = await api.post('/v2/circuits', { circuit, backend: 'statevector_simulator', shot: 5 });
    assertRefused(r, /body\.shot is not a known field \(did you mean shots\?\); known fields: .*shots/);
    assert.equal(await jobCount(), 0);
  });

  it('refuses options.seed (the field is seed_simulator) and a stray top-level field', async () => {
    assertRefused(await api.post('/v2/circuits', { circuit, backend: 'statevector_simulator', options: { seed: 7 } }), /body\.options\.seed is not a known field.*seed_simulator/);
    assertRefused(await api.post('/v2/circuits', { circuit, backend: 'statevector_simulator', bogus: 1 }), /body\.bogus is not a known field/);
    assertRefused(await api.post('/v2/circuits', { circuit: { ...circuit, qasm_version: 2 }, backend: 'statevector_simulator' }), /body\.circuit\.qasm_version/);
    assert.equal(await jobCount(), 0);
  });

  it('refuses unknown fields on optimize, simulate and webhooks, and unknown query parameters', async () => {
    assertRefused(await api.post('/v2/optimize', { circuit, target_backend: 'statevector_simulator', level: 3 }), /body\.level is not a known field/);
    assertRefused(await api.post('/v2/simulate', { circuit, shots: 10, seed: 1 }), /body\.seed is not a known field/);
    assertRefused(await api.post('/v2/webhooks', { url: 'https://example.com/hook', events: ['job.completed'], secret: 's'.repeat(16), event: 'x' }), /body\.event is not a known field/);
    assertRefused(await api.get('/v2/jobs?limt=5'), /querystring\.limt is not a known field \(did you mean limit\?\)/);
  });

  it('refuses a body sent to a route that takes none, and still runs a correct request', async () => {
    const ok = await api.post('/v2/circuits', { circuit, backend: 'statevector_simulator', shots: 5, options: { seed_simulator: 3 } });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.shots, 5);
    const stray = await call(`${svc.url}/v2/jobs/${ok.body.job_id}`, { method: 'DELETE', body: { reason: 'typo' }, headers: { 'x-api-key': key } });
    assertRefused(stray, /body\.reason is not a known field; this route takes no body/);
    const cancel = await call(`${svc.url}/v2/jobs/${ok.body.job_id}`, { method: 'DELETE', body: {}, headers: { 'x-api-key': key } });
    assert.notEqual(cancel.status, 400, 'an empty object is no field at all');
  });

  it('the published schema is closed and asks only for the fields without a default', async () => {
    const doc = (await call(`${svc.url}/openapi.json`)).body;
    const body = doc.paths['/v2/circuits'].post.requestBody.content['application/json'].schema;
    assert.equal(body.additionalProperties, false);
    assert.deepEqual(body.required, ['circuit', 'backend'], 'shots and optimization_level have defaults');
  });
});
