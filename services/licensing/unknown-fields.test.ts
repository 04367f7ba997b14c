/** Unknown fields on variants A and B: 400 `{detail}` naming the field, never dropped (a misspelt `valid_day` once issued a 365-day license). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { countRows, startB, type BTest } from './routes/b-testing.ts';

let b: BTest;
let apiKey: string;
let bearer: Record<string, string>;
before(async () => {
  b = await startB();
  apiKey = (await b.svc.newKey()).key;
  bearer = { authorization: `Bearer ${(await b.svc.newKey()).key}` };
});
after(() => b.svc.close());

function assertRefused(r: { status: number; body: any }, detail: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body), ['detail']);
  assert.match(r.body.detail, detail);
}

describe('unknown fields (licensing)', () => {
  it('variant B generate refuses a misspelt valid_days and issues nothing', async () => {
    const before = await countRows(b.svc);
    assertRefused(await b.generate(apiKey, { valid_day: 30 }), /body\.valid_day is not a known field \(did you mean valid_days\?\)/);
    assert.equal(await countRows(b.svc), before);
  });

  it('variant B validate, revoke and the unauthenticated list refuse unknown fields and query parameters', async () => {
    assertRefused(await b.as(apiKey, '/api/v1/licenses/validate', { body: { license_key: 'x', customer_id: 'c' } }), /body\.customer_id is not a known field.*end_customer_id/);
    assertRefused(await b.as(apiKey, '/api/v1/licenses?per_pag=5'), /querystring\.per_pag is not a known field \(did you mean per_page\?\)/);
  });

  it('variant A revoke and validate refuse unknown fields', async () => {
    const revoke = await call(`${b.svc.url}/api/v1/v2/revoke`, { headers: bearer, body: { license_id: '00000000-0000-4000-8000-000000000000', reason: 'fraud', until: null } });
    assertRefused(revoke, /body\.until is not a known field; known fields: .*effective_until/);
    const validate = await call(`${b.svc.url}/api/v1/v2/validate`, { headers: bearer, body: { artifact_compact: 'x', fingerprint: {} } });
    assertRefused(validate, /body\.fingerprint is not a known field.*device_fingerprint/);
    const epoch = await call(`${b.svc.url}/api/v1/v2/revocation`, { headers: bearer });
    assert.equal(epoch.body.epoch, 0, 'the refused revoke changed no epoch');
  });
});

describe('bodiless requests with Content-Type: application/json (variant A sends it on every request)', () => {
  it('un-revoke with the header and no body is answered by the route, not refused as malformed JSON', async () => {
    const r = await call(`${b.svc.url}/api/v1/v2/revoke/00000000-0000-4000-8000-000000000000`, { method: 'DELETE', rawBody: '', headers: { ...bearer, 'content-type': 'application/json' } });
    assert.equal(r.status, 404, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body), ['detail']);
    assert.match(r.body.detail, /License not found/);
  });
});

