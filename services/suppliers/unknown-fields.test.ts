/** Unknown fields on interfaces 2 and 4: the spec's 422 VALIDATION_ERROR naming the field, in `{detail, error_code, supplier, request_id}`; no job is made. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { BELL, client, startSuppliers } from './testing.ts';

let svc: TestService;
let api: ReturnType<typeof client>;
let key: string;
before(async () => {
  svc = await startSuppliers();
  key = (await svc.newKey({ plan: 'pro' })).key;
  api = client(svc, key);
});
after(() => svc.close());

const jobCount = async () => Number((await svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM quantum_jobs'))[0]!.n);

function assertRefused(r: { status: number; body: any }, detail: RegExp) {
  assert.equal(r.status, 422, JSON.stringify(r.body));
  assert.equal(r.body.error_code, 'VALIDATION_ERROR');
  assert.match(r.body.detail, detail);
  assert.ok('supplier' in r.body);
  assert.equal(typeof r.body.request_id, 'string');
}

describe('unknown fields (suppliers)', () => {
  it('each supplier execute refuses a misspelt field and runs nothing', async () => {
    assertRefused(await api.post('/api/v1/supplier_b_quantum/execute', { qasm: BELL, backend: 'x', shot: 5 }), /body\.shot is not a known field \(did you mean shots\?\)/);
    assertRefused(await api.post('/api/v1/supplier_a_quantum/execute', { qasm: BELL, provider: 'p', target: 't', shots: 5, backend: 'b' }), /body\.backend is not a known field/);
    assertRefused(await api.post('/api/v1/supplier_c/execute', { qasm: BELL, device_arn: 'arn', shots: 5, s3_bucket: 'b' }), /body\.s3_bucket is not a known field.*storage_bucket/);
    assertRefused(await api.post('/execute', { qasm: BELL, shots: 5, id: 'mine' }), /body\.id is not a known field.*job_id/);
    assert.equal(await jobCount(), 0);
  });

  it('the catalog routes refuse unknown fields, nested ones and unknown query parameters; cancel takes no body', async () => {
    assertRefused(await api.post('/api/v1/validate', { qasm: BELL, targets: [{ provider: 'p', backend: 'b', shots: 1 }] }), /body\.targets\.0\.shots is not a known field/);
    assertRefused(await api.get('/api/v1/jobs/history?statuss=queued'), /querystring\.statuss is not a known field \(did you mean status\?\)/);
    const cancel = await call(`${svc.url}/api/v1/supplier_b_quantum/jobs/nope`, { method: 'DELETE', body: { reason: 'x' }, headers: { 'x-api-key': key } });
    assertRefused(cancel, /body\.reason is not a known field; this route takes no body/);
  });
});
