import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from './errors.ts';
import { errorShape, nestedErrorBody } from './error-shape.ts';

const shape = errorShape({
  codes: { BAD: 400, WRONG_TYPE: 422, MISSING: 404, GONE: 410, BROKEN: 500 },
  platform: { invalid: 'BAD', validation: 'WRONG_TYPE', notFound: 'MISSING', internal: 'BROKEN' },
  body: (code, e, requestId) => ({ code, said: e.message, requestId, ...e.extra }),
});

test("the platform's own refusals land on the codes the service names for them", () => {
  const format = (code: string, status: number) => shape.format(new ApiError(status, code, 'm'), 'req_1') as { code: string };
  assert.equal(format('validation_error', 400).code, 'WRONG_TYPE');
  for (const c of ['invalid_json', 'body_too_large', 'bad_request', 'unsupported_media_type']) assert.equal(format(c, 400).code, 'BAD');
  assert.equal(format('not_found', 404).code, 'MISSING');
  assert.equal(format('internal_error', 500).code, 'BROKEN');
});

test("the service's own codes pass through; a code it does not know is its internal code on a 5xx and its invalid code otherwise", () => {
  assert.deepEqual(shape.format(shape.error('GONE', 'went', { id: 'x' }), 'req_2'), { code: 'GONE', said: 'went', requestId: 'req_2', id: 'x' });
  assert.equal((shape.format(new ApiError(503, 'upstream_down', 'm'), 'r') as { code: string }).code, 'BROKEN');
  assert.equal((shape.format(new ApiError(429, 'rate_limited', 'm'), 'r') as { code: string }).code, 'BAD');
});

test('an error carries its status, code, extra fields and headers; the nested body puts the extra fields in details', () => {
  const e = shape.error('MISSING', 'no such job', { job_id: 'j1' }, { 'retry-after': '1' });
  assert.equal(e.status, 404);
  assert.equal(e.code, 'MISSING');
  assert.deepEqual(e.headers, { 'retry-after': '1' });
  assert.deepEqual(nestedErrorBody('MISSING', e, 'req_3'), { error: { code: 'MISSING', message: 'no such job', details: { job_id: 'j1' } }, request_id: 'req_3' });
});
