/** Bad input on every variant C route: a `{detail}` 400, never a 500 or a stack trace, and nothing changes. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { startC, type CTest } from './testing.ts';

let c: CTest;
let key: string;
before(async () => {
  c = await startC();
  key = (await c.register('professional')).key;
});
after(() => c.svc.close());

async function snapshot(): Promise<string> {
  const [row] = await c.svc.db.query(
    `SELECT (SELECT count(*)::int FROM accounts) AS a, (SELECT count(*)::int FROM api_keys) AS k,
            (SELECT count(*)::int FROM licensing_c_licenses) AS l, (SELECT COALESCE(sum(value), 0)::int FROM usage_counters) AS u`,
  );
  return JSON.stringify(row);
}

test('every bad request is a 400 with a detail text and changes nothing', async () => {
  const reg = '/api/v1/customers/register';
  const gen = '/api/v1/licenses/generate';
  const val = '/api/v1/licenses/validate';
  const good = { email: 'x@example.test', company_name: 'X', plan: 'starter' };
  const huge = 'x'.repeat(100 * 1024);
  const cases: Array<[string, string, unknown, string?]> = [
    ['register: malformed JSON', reg, undefined, '{"email":'],
    ['register: missing email', reg, { company_name: 'X', plan: 'starter' }],
    ['register: not an email', reg, { ...good, email: 'nope' }],
    ['register: missing plan', reg, { email: 'x@example.test', company_name: 'X' }],
    ['register: unknown plan', reg, { ...good, plan: 'platinum' }],
    ['register: plan a number', reg, { ...good, plan: 3 }],
    ['register: blank company', reg, { ...good, company_name: '   ' }],
    ['register: huge body', reg, { ...good, company_name: huge }],
    ['generate: malformed JSON', gen, undefined, '{'],
    ['generate: missing features', gen, { end_customer_id: 'a' }],
    ['generate: missing customer', gen, { features: [] }],
    ['generate: features wrong type', gen, { end_customer_id: 'a', features: [{}] }],
    ['generate: expires_in_days 3651', gen, { end_customer_id: 'a', features: [], expires_in_days: 3651 }],
    ['generate: expires_in_days 0', gen, { end_customer_id: 'a', features: [], expires_in_days: 0 }],
    ['generate: expires_in_days text', gen, { end_customer_id: 'a', features: [], expires_in_days: '9' }],
    ['generate: metadata nested object', gen, { end_customer_id: 'a', features: [], metadata: { a: { b: 1 } } }],
    ['generate: metadata an array', gen, { end_customer_id: 'a', features: [], metadata: ['a'] }],
    ['generate: huge body', gen, { end_customer_id: huge, features: [] }],
    ['validate: malformed JSON', val, undefined, '[1,'],
    ['validate: missing key', val, {}],
    ['validate: key a number', val, { license_key: 12 }],
  ];
  const before = await snapshot();
  for (const [name, path, body, rawBody] of cases) {
    const res = await call(`${c.svc.url}${path}`, { body, rawBody, headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
    assert.deepEqual(Object.keys(res.body), ['detail'], name);
    assert.doesNotMatch(res.body.detail, /\n\s+at /, name);
  }
  assert.equal(await snapshot(), before);
});

test('the detail texts name the field or the allowed values', async () => {
  const plan = await call(`${c.svc.url}/api/v1/customers/register`, { body: { email: 'y@example.test', company_name: 'Y', plan: 'gold' } });
  assert.equal(plan.body.detail, 'plan must be one of starter, professional, enterprise');
  const missing = await c.as(key, '/api/v1/licenses/generate', { body: { end_customer_id: 'a' } });
  assert.match(missing.body.detail, /features/);
});
