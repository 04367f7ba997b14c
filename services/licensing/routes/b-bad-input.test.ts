/** Bad input on every variant B route: a `{detail}` 400 (never a 500 or a stack trace), and nothing changes. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServiceApp } from '../../../platform/http/app.ts';
import { requireKey } from '../../../platform/http/auth.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { call } from '../../../platform/testing/harness.ts';
import { formatLicensingError } from '../errors.ts';
import type { VariantBDeps } from './b-context.ts';
import { registerGenerate } from './b-generate.ts';
import { countRows, startB, type BTest } from './b-testing.ts';

let b: BTest;
let key: string;
let token: string;
let licenseKey: string;

before(async () => {
  b = await startB();
  key = (await b.svc.newKey()).key;
  token = (await b.svc.newKey({ kind: 'service_token' })).key;
  licenseKey = (await b.generate(key, { end_customer_id: 'bad-input' })).body.license_key;
});
after(() => b.svc.close());

const huge = 'x'.repeat(300 * 1024);

interface Case {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
  auth?: 'key' | 'token';
}

function cases(): Case[] {
  const gen = '/api/v1/licenses/generate';
  const val = '/api/v1/licenses/validate';
  const rev = `/api/v1/licenses/${licenseKey}/revoke`;
  const sign = '/api/v1/kms/sign';
  const verify = '/api/v1/kms/verify';
  const post = (name: string, path: string, body: unknown, auth: 'key' | 'token' = 'key'): Case => ({ name, method: 'POST', path, body, auth });
  const raw = (name: string, path: string, rawBody: string, auth: 'key' | 'token' = 'key'): Case => ({ name, method: 'POST', path, rawBody, auth });
  const get = (name: string, path: string): Case => ({ name, method: 'GET', path, auth: 'key' });
  return [
    raw('generate: malformed JSON', gen, '{"end_customer_id": '),
    raw('generate: a JSON string', gen, '"hello"'),
    post('generate: missing end_customer_id', gen, { features: [] }),
    post('generate: empty end_customer_id', gen, { end_customer_id: '' }),
    post('generate: number as customer', gen, { end_customer_id: 5 }),
    post('generate: features not an array', gen, { end_customer_id: 'a', features: 'pro' }),
    post('generate: feature not a string', gen, { end_customer_id: 'a', features: [1] }),
    post('generate: valid_days 0', gen, { end_customer_id: 'a', valid_days: 0 }),
    post('generate: valid_days 3651', gen, { end_customer_id: 'a', valid_days: 3651 }),
    post('generate: valid_days fractional', gen, { end_customer_id: 'a', valid_days: 1.5 }),
    post('generate: valid_days as text', gen, { end_customer_id: 'a', valid_days: '30' }),
    post('generate: metadata an array', gen, { end_customer_id: 'a', metadata: [1] }),
    post('generate: huge body', gen, { end_customer_id: huge }),
    post('generate: too many features', gen, { end_customer_id: 'a', features: Array.from({ length: 101 }, (_, i) => `f${i}`) }),
    raw('validate: malformed JSON', val, '{'),
    post('validate: missing end_customer_id', val, { license_key: licenseKey }),
    post('validate: missing license_key', val, { end_customer_id: 'bad-input' }),
    post('validate: wrong types', val, { license_key: 1, end_customer_id: true }),
    post('validate: huge body', val, { license_key: huge, end_customer_id: 'x' }),
    raw('revoke: malformed JSON', rev, '{"reason": '),
    post('revoke: reason a number', rev, { reason: 5 }),
    post('revoke: reason too long', rev, { reason: 'r'.repeat(501) }),
    get('list: page 0', '/api/v1/licenses?page=0'),
    get('list: page text', '/api/v1/licenses?page=abc'),
    get('list: per_page 101', '/api/v1/licenses?per_page=101'),
    get('list: per_page 0', '/api/v1/licenses?per_page=0'),
    get('list: unknown status_filter', '/api/v1/licenses?status_filter=deleted'),
    get('revocations: since not a date', '/api/v1/revocations?since=yesterday'),
    get('revocations: since impossible date', '/api/v1/revocations?since=2026-13-45T00:00:00Z'),
    raw('kms sign: malformed JSON', sign, '{"data"', 'token'),
    post('kms sign: missing data', sign, {}, 'token'),
    post('kms sign: data not base64', sign, { data: '***' }, 'token'),
    post('kms sign: unknown algorithm', sign, { data: 'aGk=', algorithm: 'RSA' }, 'token'),
    post('kms sign: bad key id', sign, { data: 'aGk=', key_id: '../etc' }, 'token'),
    post('kms sign: huge data', sign, { data: 'A'.repeat(200_000) }, 'token'),
    post('kms verify: missing signature', verify, { data: 'aGk=' }, 'token'),
    post('kms verify: signature not base64', verify, { data: 'aGk=', signature: '!!' }, 'token'),
    post('kms verify: data wrong type', verify, { data: 7, signature: 'aGk=' }, 'token'),
  ];
}

test('every bad request is a 400 with a detail text, and changes nothing', async () => {
  const before = await countRows(b.svc);
  const keysBefore = (await b.svc.db.query('SELECT count(*)::int AS n FROM licensing_signing_keys'))[0];
  for (const c of cases()) {
    const headers: Record<string, string> = c.auth === 'token' ? { authorization: `Bearer ${token}` } : { 'x-api-key': key };
    const res = await call(`${b.svc.url}${c.path}`, { method: c.method, body: c.body, rawBody: c.rawBody, headers });
    assert.equal(res.status, 400, `${c.name}: ${JSON.stringify(res.body)}`);
    assert.deepEqual(Object.keys(res.body), ['detail'], c.name);
    assert.equal(typeof res.body.detail, 'string', c.name);
    assert.doesNotMatch(res.body.detail, /\n\s+at /, `${c.name} leaks a stack trace`);
  }
  assert.equal(await countRows(b.svc), before);
  assert.deepEqual((await b.svc.db.query('SELECT count(*)::int AS n FROM licensing_signing_keys'))[0], keysBefore);
  const detail = await b.as(key, `/api/v1/licenses/${licenseKey}`);
  assert.equal(detail.body.revoked, false);
});

test('the detail texts name the problem', async () => {
  const missing = await b.as(key, '/api/v1/licenses/generate', { body: { features: [] } });
  assert.match(missing.body.detail, /end_customer_id/);
  const range = await b.as(key, '/api/v1/licenses?per_page=500');
  assert.match(range.body.detail, /per_page/);
  const since = await b.as(key, '/api/v1/revocations?since=nope');
  assert.equal(since.body.detail, 'since must be an ISO 8601 datetime');
});

test('unknown routes are a {detail} 404', async () => {
  const res = await call(`${b.svc.url}/api/v1/nothing-here`);
  assert.equal(res.status, 404);
  assert.match(res.body.detail, /not found/);
});

test('a failure inside the quantum signature is a {detail} 500 without a trace, and stores nothing', async () => {
  const app = await createServiceApp({
    docs: { title: 't', description: 'd', version: '1' },
    formatError: formatLicensingError,
    logLevel: 'silent',
  });
  // Only what generate uses; a 4-byte secret makes the signature engine refuse to work.
  const deps = {
    ctx: b.svc.ctx,
    secret: new Uint8Array(4),
    apiKeyAuth: requireKey({ db: b.svc.db, service: 'licensing', header: 'x-api-key', unauthorized: () => new ApiError(401, 'x', 'no') }),
  } as unknown as VariantBDeps;
  registerGenerate(app, deps);
  const before = await countRows(b.svc);
  const res = await app.inject({ method: 'POST', url: '/api/v1/licenses/generate', headers: { 'x-api-key': key }, payload: { end_customer_id: 'e' } });
  await app.close();
  assert.equal(res.statusCode, 500);
  assert.deepEqual(res.json(), { detail: 'License generation failed: the quantum signature could not be computed' });
  assert.equal(await countRows(b.svc), before);
});
