/** Unknown fields on the runtime (interface 6): 400 INVALID_REQUEST naming the field; nothing is kept. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { BELL, client, snapshot, startRuntime } from './testing.ts';

let svc: TestService;
let api: ReturnType<typeof client>;
let key: string;
before(async () => {
  svc = await startRuntime();
  key = (await svc.newKey({ role: 'developer' })).key;
  api = client(svc, key);
});
after(() => svc.close());

function assertRefused(r: { status: number; body: any }, message: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'INVALID_REQUEST');
  assert.match(r.body.error.message, message);
  assert.equal(typeof r.body.error.details, 'object');
  assert.equal(typeof r.body.request_id, 'string');
}

describe('unknown fields (runtime)', () => {
  it('submit refuses a misspelt field on both routes and keeps nothing', async () => {
    const before = await snapshot(svc);
    assertRefused(await api.post('/api/v1/runtime/jobs', { backend_id: 'statevector_simulator', qasm: BELL, shots: 10, shot: 5 }), /body\.shot is not a known field \(did you mean shots\?\)/);
    assertRefused(await api.post('/api/v1/runtime/jobs/async', { backend: 'statevector_simulator', qasm: BELL, shots: 10 }), /body\.backend is not a known field.*backend_id/);
    assert.equal(await snapshot(svc), before);
  });

  it('approve and delete take no body; a job query refuses unknown parameters', async () => {
    const job = await api.post('/api/v1/runtime/jobs', { backend_id: 'statevector_simulator', qasm: BELL, shots: 10 });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    const id = job.body.job_id;
    const del = await call(`${svc.url}/api/v1/runtime/jobs/${id}`, { method: 'DELETE', body: { force: true }, headers: { authorization: `Bearer ${key}` } });
    assertRefused(del, /body\.force is not a known field; this route takes no body/);
    assertRefused(await api.post(`/api/v1/runtime/jobs/${id}/approve?approval_token=x`, { token: 'x' }), /body\.token is not a known field; this route takes no body/);
    assertRefused(await api.get(`/api/v1/runtime/jobs/${id}?wiat=1`), /querystring\.wiat is not a known field \(did you mean wait\?\)/);
  });
});
