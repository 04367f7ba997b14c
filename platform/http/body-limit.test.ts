/**
 * Oversized bodies: a client that writes its whole body before reading (as most do) reads the
 * service's 400 in its own shape, instead of a broken connection (EPIPE, ECONNRESET).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../testing/harness.ts';
import { licensingService } from '../../services/licensing/service.ts';
import { qcosService } from '../../services/qcos/service.ts';

const MB = 1024 * 1024;

/** POSTs `size` bytes with node:http, writing all of them, and reads the answer. */
function postLarge(url: string, size: number, options: { chunked?: boolean; headers?: Record<string, string> } = {}) {
  const body = Buffer.alloc(size, 'a');
  const headers: Record<string, string | number> = { 'content-type': 'application/json', ...options.headers };
  if (!options.chunked) headers['content-length'] = size;
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    let answer: { status: number; body: any } | null = null;
    let failure: Error | null = null;
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (answer = { status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    // Settled when the request is over, so that a reset after the answer fails the test too.
    req.on('error', (err) => (failure ??= err));
    req.on('close', () => (failure ? reject(failure) : answer ? resolve(answer) : reject(new Error('no answer'))));
    if (options.chunked) {
      // Several writes, so that the body really travels chunked.
      for (let at = 0; at < size; at += 256 * 1024) req.write(body.subarray(at, at + 256 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

describe('oversized bodies are answered, not reset', () => {
  let licensing: TestService;
  let qcos: TestService;
  let auth: Record<string, string>;

  before(async () => {
    licensing = await startTestService(licensingService);
    qcos = await startTestService(qcosService);
    auth = { authorization: `Bearer ${(await licensing.newKey()).key}` };
  });
  after(async () => {
    await licensing.close();
    await qcos.close();
  });

  for (const size of [2 * MB, 12 * MB]) {
    test(`${size / MB} MB to a variant A route answers 400 {detail}, with a length or chunked`, async () => {
      for (const chunked of [false, true]) {
        const r = await postLarge(`${licensing.url}/api/v1/v2/validate`, size, { chunked, headers: auth });
        assert.equal(r.status, 400, `chunked: ${chunked}`);
        assert.deepEqual(r.body, { detail: 'Request body is too large' });
      }
    });
  }

  test('2 MB to an interface 1 route answers 400 in its error envelope', async () => {
    const r = await postLarge(`${qcos.url}/v2/circuits`, 2 * MB);
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'INVALID_REQUEST');
    assert.equal(r.body.error.message, 'Request body is too large');
    assert.equal(typeof r.body.request_id, 'string');
  });

  test('the service still answers after refusing a large body', async () => {
    await postLarge(`${licensing.url}/api/v1/v2/validate`, 12 * MB, { headers: auth });
    const r = await postLarge(`${licensing.url}/api/v1/v2/validate`, 2, { headers: auth });
    assert.equal(r.status, 400);
    assert.match(r.body.detail, /Malformed JSON/);
  });
});
