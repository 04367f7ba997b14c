import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from './errors.ts';
import { detailShape, errorShape, nestedErrorBody } from './error-shape.ts';

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

test('a catalogue may name its own codes for a body that is not JSON and for the platform rate limit', () => {
  const own = errorShape({
    codes: { INVALID: 400, MISSING: 404, MEDIA: 415, SLOW_DOWN: 429, BROKEN: 500 },
    platform: { invalid: 'INVALID', unsupportedMediaType: 'MEDIA', rateLimited: 'SLOW_DOWN', notFound: 'MISSING', internal: 'BROKEN' },
    body: (code) => code,
  });
  assert.equal(own.format(new ApiError(415, 'unsupported_media_type', 'm'), 'r'), 'MEDIA');
  assert.equal(own.format(new ApiError(429, 'rate_limited', 'm'), 'r'), 'SLOW_DOWN');
  assert.equal(own.format(new ApiError(429, 'too_many', 'm'), 'r'), 'INVALID', 'only the platform rate limit lands on it');
});

test('a catalogue whose codes follow the status answers what it does not know by the status alone', () => {
  const byStatus = errorShape({
    codes: { DENIED: 403, GONE: 404, BAD: 400, LATER: 429, BROKEN: 500, ODD: 418 },
    platform: { invalid: 'BAD', notFound: 'GONE', internal: 'BROKEN', byStatus: { 403: 'DENIED', 404: 'GONE', 429: 'LATER' } },
    body: (code) => code,
  });
  const format = (code: string, status: number) => byStatus.format(new ApiError(status, code, 'm'), 'r');
  assert.equal(format('rate_limited', 429), 'LATER');
  assert.equal(format('bad_request', 404), 'GONE', "the status, not the platform's code");
  assert.equal(format('not_found', 400), 'BAD');
  assert.equal(format('invalid_json', 503), 'BROKEN');
  assert.equal(format('ODD', 400), 'ODD', 'its own codes pass through whatever the status');
});

test("a code named like an object's own property is no catalogue code", () => {
  for (const code of ['toString', 'constructor', '__proto__']) assert.equal((shape.format(new ApiError(400, code, 'm'), 'r') as { code: string }).code, 'BAD');
});

test('the detail shape is the message alone, with its schema under the id given', () => {
  const { format, schema } = detailShape('SomeDetail', 'Error body of some service.');
  assert.deepEqual(format(new ApiError(404, 'not_found', 'License not found', { x: 1 }), 'r'), { detail: 'License not found' });
  assert.equal((schema as { $id?: string }).$id, 'SomeDetail');
  assert.deepEqual(Object.keys(schema.properties), ['detail']);
});
