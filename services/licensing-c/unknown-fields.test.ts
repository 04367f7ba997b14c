/** Unknown fields on variant C: 400 `{detail}` naming the field, never dropped. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { startC, type CTest } from './testing.ts';

let c: CTest;
let key: string;
before(async () => {
  c = await startC();
  key = (await c.register()).key;
});
after(() => c.svc.close());

function assertRefused(r: { status: number; body: any }, detail: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body), ['detail']);
  assert.match(r.body.detail, detail);
}

describe('unknown fields (licensing-c)', () => {
  it('generate refuses a misspelt expires_in_days and counts nothing against the month', async () => {
    assertRefused(await c.generate(key, { expires_days: 30 }), /body\.expires_days is not a known field.*expires_in_days/);
    const stats = await c.as(key, '/api/v1/stats');
    assert.equal(stats.body.this_month, 0);
  });

  it('register and validate refuse unknown fields; free-form metadata stays free-form', async () => {
    const register = await call(`${c.svc.url}/api/v1/customers/register`, { body: { email: 'x@example.test', company_name: 'X', plan: 'starter', company: 'X' } });
    assertRefused(register, /body\.company is not a known field/);
    assertRefused(await call(`${c.svc.url}/api/v1/licenses/validate`, { body: { license_key: 'x', end_customer_id: 'e' } }), /body\.end_customer_id is not a known field; known fields: license_key/);
    const ok = await c.generate(key, { metadata: { seats: 5, anything: 'goes' } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});
