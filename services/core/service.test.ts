/** Core service basics: health, docs, authentication in both header forms, the error envelope, plans' request rates. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call } from '../../platform/testing/harness.ts';
import { startCore, type CoreTest } from './testing.ts';

let c: CoreTest;
before(async () => {
  c = await startCore();
});
after(() => c.svc.close());

describe('health and documentation', () => {
  test('/health answers without the envelope', async () => {
    const res = await call(`${c.svc.url}/health`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'healthy');
    assert.equal(res.body.success, undefined);
  });

  test('/openapi.json lists every route of the spec with the error envelope; /docs and /redoc serve pages', async () => {
    const res = await call(`${c.svc.url}/openapi.json`);
    assert.equal(res.status, 200);
    const paths = Object.keys(res.body.paths);
    for (const p of [
      '/api/v2/optimize',
      '/api/v2/optimize/{job_id}',
      '/api/v2/optimize/batch',
      '/api/v2/optimize/stats',
      '/api/v2/backends',
      '/api/v2/backends/{backend_id}',
      '/api/v2/backends/{backend_id}/calibration',
      '/api/v2/jobs',
      '/api/v2/jobs/{job_id}',
      '/api/v2/jobs/{job_id}/retry',
      '/api/v2/evidence/{bundle_id}',
      '/api/v2/evidence/verify',
      '/api/v2/evidence/export/{bundle_id}',
      '/api/v2/evidence/keys',
      '/api/v2/status',
      '/health',
    ]) {
      assert.ok(paths.includes(p), `${p} documented`);
    }
    assert.ok(res.body.paths['/api/v2/jobs/{job_id}'].delete, 'DELETE documented');
    assert.ok(res.body.components.schemas.CoreError, 'error envelope declared once');
    assert.deepEqual(Object.keys(res.body.components.securitySchemes).sort(), ['apiKey', 'bearerAuth']);
    assert.equal((await fetch(`${c.svc.url}/docs`)).status, 200);
    const redoc = await fetch(`${c.svc.url}/redoc`);
    assert.equal(redoc.status, 200);
    assert.match(await redoc.text(), /openapi\.json/);
  });
});

describe('authentication', () => {
  test('X-API-Key and Authorization: Bearer both authenticate', async () => {
    const key = await c.key('pro');
    assert.equal((await call(`${c.svc.url}/api/v2/backends`, { headers: { 'x-api-key': key } })).status, 200);
    assert.equal((await call(`${c.svc.url}/api/v2/backends`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
  });

  test('a missing, unknown or revoked key is 401 UNAUTHORIZED in the envelope', async () => {
    const none = await call(`${c.svc.url}/api/v2/backends`);
    assert.equal(none.status, 401);
    assert.equal(none.body.success, false);
    assert.equal(none.body.error.code, 'UNAUTHORIZED');
    assert.equal(typeof none.body.error.message, 'string');
    const wrong = await call(`${c.svc.url}/api/v2/jobs`, { headers: { 'x-api-key': 'qcore_notakey' } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'UNAUTHORIZED');
    const { key, keyId } = await c.svc.newKey({ plan: 'pro' });
    await c.svc.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId]);
    assert.equal((await c.as(key, '/api/v2/backends')).status, 401);
  });

  test("another service's key is refused", async () => {
    const { createKey } = await import('../../platform/identity/keys.ts');
    const { accountId } = await c.svc.newKey();
    const other = await createKey(c.svc.db, { accountId, service: 'qcos', prefix: 'qcos', kind: 'api_key', role: 'member', expiresAt: null });
    assert.equal((await c.as(other.key, '/api/v2/backends')).status, 401);
  });

  test('status, health and the evidence keys need no key', async () => {
    assert.equal((await call(`${c.svc.url}/api/v2/status`)).status, 200);
    assert.equal((await call(`${c.svc.url}/api/v2/evidence/keys`)).status, 200);
  });
});

describe('error envelope for bad requests', () => {
  test('malformed JSON, wrong types, missing fields and unknown enum values are 400 INVALID_REQUEST', async () => {
    const key = await c.key('pro');
    const bad = [
      { rawBody: '{"qasm": ' },
      { body: { qasm: 5, backend: 'statevector_simulator' } },
      { body: { backend: 'statevector_simulator' } },
      { body: { qasm: 'x', backend: 'statevector_simulator', shots: 'many' } },
      { body: { qasm: 'x', backend: 'statevector_simulator', shots: 0 } },
      { body: { qasm: 'x', backend: 'statevector_simulator', options: { optimization_level: 4 } } },
    ];
    for (const init of bad) {
      const res = await c.as(key, '/api/v2/optimize', { method: 'POST', ...init });
      assert.equal(res.status, 400, JSON.stringify(init));
      assert.deepEqual(Object.keys(res.body).sort(), ['error', 'success']);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'INVALID_REQUEST');
    }
    const list = await c.as(key, '/api/v2/jobs?status=sleeping');
    assert.equal(list.status, 400);
    assert.equal(list.body.error.code, 'INVALID_REQUEST');
    const format = await c.as(key, '/api/v2/evidence/export/evb_x?format=docx');
    assert.equal(format.status, 400);
  });

  test('a body over 1 MiB is a 400 in the envelope, never a 500', async () => {
    const key = await c.key('pro');
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', body: { qasm: 'x'.repeat(1_100_000), backend: 'statevector_simulator' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'INVALID_REQUEST');
  });

  test('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE in the envelope', async () => {
    const key = await c.key('pro');
    const res = await c.as(key, '/api/v2/optimize', { method: 'POST', rawBody: '<qasm/>', headers: { 'content-type': 'application/xml' } });
    assert.equal(res.status, 415);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    const text = await c.as(key, '/api/v2/optimize', { method: 'POST', rawBody: 'qasm=x', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.status, 400, 'plain text is read, and is not the JSON object the route takes');
    assert.equal(text.body.error.code, 'INVALID_REQUEST');
  });

  test('an unknown route is 404 NOT_FOUND in the envelope', async () => {
    const res = await call(`${c.svc.url}/api/v2/nothing`);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body.success, false);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  });
});

describe('request rates per plan', () => {
  test('the free plan answers 60 requests a minute, then 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    const key = await c.key('free');
    // Minutes are fixed UTC minutes: start well inside one so that all 61 requests fall in it.
    const second = new Date().getUTCSeconds();
    if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof call>> | null = null;
    while (!limited && statuses.length < 200) {
      const res = await c.as(key, '/api/v2/backends');
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    assert.deepEqual(statuses, [...new Array(60).fill(200), 429], "exactly the minute's 60 pass");
    assert.ok(limited, 'a request past the allowance of the minute is refused');
    assert.equal(limited.body.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.match(limited.body.error.message, /60 requests per minute/);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(limited.headers.get('x-ratelimit-limit'), '60');
    // Another key has its own allowance.
    assert.equal((await c.as(await c.key('free'), '/api/v2/backends')).status, 200);
  });

  test('the pro plan allows 300 a minute and enterprise 1000 (rate headers say so)', async () => {
    const pro = await c.as(await c.key('pro'), '/api/v2/backends');
    assert.equal(pro.headers.get('x-ratelimit-limit'), '300');
    assert.equal(pro.headers.get('x-ratelimit-remaining'), '299');
    const ent = await c.as(await c.key('Enterprise'), '/api/v2/backends');
    assert.equal(ent.headers.get('x-ratelimit-limit'), '1000');
    const key = await c.key('pro');
    const results = await Promise.all(Array.from({ length: 120 }, () => c.as(key, '/api/v2/backends')));
    assert.ok(results.every((r) => r.status === 200), '120 at once are within 300 a minute');
  });
});
