/**
 * The KMS: signs the raw data with ML-DSA-65, ML-DSA-87 and Ed25519, reports SHA3-256 of the
 * data, and its signatures verify independently (@noble/post-quantum, node:crypto) against
 * the public keys published at /api/v1/kms/keys.
 */
import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { call } from '../../../platform/testing/harness.ts';
import { SigningKeys } from '../signing-keys.ts';
import { startB, type BTest } from './b-testing.ts';

let b: BTest;
let token: string;
let apiKey: string;
const data = Buffer.from('ledger entry 42: €10.00 to acct 7\n', 'utf8');

before(async () => {
  b = await startB();
  token = (await b.svc.newKey({ kind: 'service_token' })).key;
  apiKey = (await b.svc.newKey()).key;
});
after(() => b.svc.close());

const kms = (path: string, body: unknown, auth = token) =>
  call(`${b.svc.url}/api/v1/kms/${path}`, { body, headers: { authorization: `Bearer ${auth}` } });

async function publishedKey(keyId: string): Promise<{ algorithm: string; public_key: string; status: string }> {
  const res = await call(`${b.svc.url}/api/v1/kms/keys`);
  const found = res.body.keys.find((k: { key_id: string }) => k.key_id === keyId);
  assert.ok(found, `key ${keyId} is published`);
  return found;
}

function independentlyValid(algorithm: string, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (algorithm === 'ML-DSA-65') return ml_dsa65.verify(signature, message, publicKey);
  if (algorithm === 'ML-DSA-87') return ml_dsa87.verify(signature, message, publicKey);
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]);
  return nodeVerify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), signature);
}

describe('KMS', () => {
  test('the default keys of all three algorithms are published from the start, without authentication', async () => {
    const res = await call(`${b.svc.url}/api/v1/kms/keys`);
    assert.equal(res.status, 200);
    const algorithms = res.body.keys.map((k: { algorithm: string }) => k.algorithm).sort();
    assert.deepEqual(algorithms, ['ED25519', 'ML-DSA-65', 'ML-DSA-87']);
    for (const k of res.body.keys) assert.equal(k.status, 'active');
  });

  for (const algorithm of ['ML-DSA-65', 'ML-DSA-87', 'ED25519']) {
    test(`${algorithm}: signs the raw bytes, verifies, and a second implementation agrees`, async () => {
      b.svc.clock.set('2026-03-01T00:00:00Z');
      const signed = await kms('sign', { data: data.toString('base64'), algorithm });
      assert.equal(signed.status, 200);
      assert.equal(signed.body.algorithm, algorithm);
      assert.equal(signed.body.signed_at, '2026-03-01T00:00:00.000Z');
      assert.equal(signed.body.data_hash, createHash('sha3-256').update(data).digest('hex'));
      const published = await publishedKey(signed.body.key_id);
      assert.equal(published.algorithm, algorithm);
      const signature = Buffer.from(signed.body.signature, 'base64');
      const publicKey = Buffer.from(published.public_key, 'base64');
      assert.equal(independentlyValid(algorithm, publicKey, data, signature), true);
      assert.equal(independentlyValid(algorithm, publicKey, Buffer.from('other'), signature), false);

      const verified = await kms('verify', { data: data.toString('base64'), signature: signed.body.signature, algorithm });
      assert.deepEqual(verified.body, {
        valid: true,
        key_id: signed.body.key_id,
        algorithm,
        verified_at: '2026-03-01T00:00:00.000Z',
        data_hash: signed.body.data_hash,
      });
      const flipped = Buffer.from(signature);
      flipped[10]! ^= 1;
      const bad = await kms('verify', { data: data.toString('base64'), signature: flipped.toString('base64'), algorithm });
      assert.equal(bad.status, 200);
      assert.equal(bad.body.valid, false);
      const otherData = await kms('verify', { data: Buffer.from('x').toString('base64'), signature: signed.body.signature, algorithm });
      assert.equal(otherData.body.valid, false);
    });
  }

  test('defaults to ML-DSA-65 and the default key', async () => {
    const signed = await kms('sign', { data: 'aGVsbG8=' });
    assert.equal(signed.body.algorithm, 'ML-DSA-65');
    assert.match(signed.body.key_id, /^mldsa65-/);
    assert.equal((await kms('verify', { data: 'aGVsbG8=', signature: signed.body.signature })).body.valid, true);
  });

  test('a signature by one algorithm does not verify as another', async () => {
    const signed = await kms('sign', { data: 'aGVsbG8=', algorithm: 'ED25519' });
    const res = await kms('verify', { data: 'aGVsbG8=', signature: signed.body.signature, algorithm: 'ML-DSA-65' });
    assert.equal(res.body.valid, false);
    const exact = await kms('verify', { data: 'aGVsbG8=', signature: signed.body.signature, key_id: signed.body.key_id, algorithm: 'ML-DSA-65' });
    assert.equal(exact.status, 400);
    assert.match(exact.body.detail, /is an ED25519 key, not ML-DSA-65/);
  });

  test('a named key is made on first use; after rotation old signatures still verify by name and by key id', async () => {
    const first = await kms('sign', { data: 'cm90YXRl', key_id: 'billing', algorithm: 'ML-DSA-87' });
    assert.equal(first.status, 200);
    await new SigningKeys(b.svc.db).rotate('kms', 'ML-DSA-87', 'billing');
    const second = await kms('sign', { data: 'cm90YXRl', key_id: 'billing', algorithm: 'ML-DSA-87' });
    assert.notEqual(second.body.key_id, first.body.key_id);
    assert.equal((await publishedKey(first.body.key_id)).status, 'retired');
    const byName = await kms('verify', { data: 'cm90YXRl', signature: first.body.signature, key_id: 'billing', algorithm: 'ML-DSA-87' });
    assert.equal(byName.body.valid, true);
    assert.equal(byName.body.key_id, first.body.key_id);
    const byId = await kms('verify', { data: 'cm90YXRl', signature: first.body.signature, key_id: first.body.key_id, algorithm: 'ML-DSA-87' });
    assert.equal(byId.body.valid, true);
    const retired = await kms('sign', { data: 'cm90YXRl', key_id: first.body.key_id, algorithm: 'ML-DSA-87' });
    assert.equal(retired.status, 400);
    assert.match(retired.body.detail, /is retired/);
  });

  test('verifying with a key name that has no key is 404', async () => {
    const res = await kms('verify', { data: 'aGVsbG8=', signature: 'aGVsbG8=', key_id: 'nobody', algorithm: 'ED25519' });
    assert.equal(res.status, 404);
    assert.match(res.body.detail, /^Key not found: nobody/);
  });

  test('needs a service token: none, an API key or X-API-Key are 401', async () => {
    const body = { data: 'aGVsbG8=' };
    const variants: Array<Record<string, string>> = [{}, { authorization: `Bearer ${apiKey}` }, { 'x-api-key': token }];
    for (const headers of variants) {
      for (const path of ['sign', 'verify']) {
        const res = await call(`${b.svc.url}/api/v1/kms/${path}`, { body: { ...body, signature: 'aGVsbG8=' }, headers });
        assert.equal(res.status, 401, `${path} ${JSON.stringify(headers)}`);
        assert.deepEqual(res.body, { detail: 'Invalid or inactive service token' });
      }
    }
  });
});
