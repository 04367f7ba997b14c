/** Unknown fields on the platform (interface 5): 400 `invalid_request` naming the field; nothing is written or held. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { BELL, client, countRows, holdsOf, JOBS, startPlatform } from './testing.ts';

let svc: TestService;
let api: ReturnType<typeof client>;
let key: string;
let accountId: string;
before(async () => {
  svc = await startPlatform();
  ({ key, accountId } = await svc.newKey());
  api = client(svc.url, key);
});
after(() => svc.close());

function assertRefused(r: { status: number; body: any }, message: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.detail, 'invalid_request');
  assert.match(r.body.message, message);
  assert.equal(typeof r.body.request_id, 'string');
}

describe('unknown fields (platform)', () => {
  it('a workload with a misspelt field is refused (by the workload check, before the schema), not run with defaults', async () => {
    assertRefused(await api.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shot: 5 }, 'uf-1'), /Unknown workload field: shot/);
    assertRefused(await api.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, backend_id: 'statevector_simulator' }), /Unknown workload field: backend_id/);
    assert.equal(await countRows(svc.db, 'platform_jobs', accountId), 0);
    assert.deepEqual(await holdsOf(svc.db, accountId), []);
  });

  it('cancel takes no body and the usage query refuses unknown parameters', async () => {
    const cancel = await call(`${svc.url}${JOBS}/00000000-0000-0000-0000-000000000000/cancel`, { body: { reason: 'x' }, headers: { authorization: `Bearer ${key}` } });
    assertRefused(cancel, /body\.reason is not a known field; this route takes no body/);
    assertRefused(await api.get('/api/v1/platform/usage?perod=2025-01'), /querystring\.perod is not a known field \(did you mean period\?\)/);
  });

  it('a workload of known fields runs', async () => {
    const r = await api.submit({ type: 'QUANTUM_CIRCUIT', qasm: BELL, shots: 5 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  });
});
