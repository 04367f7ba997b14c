import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { generateKeyPair, sign } from './algorithms.ts';
import { VerifyPool } from './verify-pool.ts';

describe('VerifyPool', () => {
  const pool = new VerifyPool(2);
  after(() => pool.close());

  test('answers like the direct verifier for many concurrent checks, valid and tampered', async () => {
    const kp = await generateKeyPair('ML-DSA-65');
    const messages = Array.from({ length: 24 }, (_, i) => new TextEncoder().encode(`message ${i}`));
    const sigs = await Promise.all(messages.map((m) => sign('ML-DSA-65', kp.secretKey, m)));
    const results = await Promise.all(
      messages.map((m, i) => {
        const sig = Uint8Array.from(sigs[i]!);
        if (i % 3 === 0) sig[7]! ^= 1;
        return pool.verify('ML-DSA-65', kp.publicKey, m, sig);
      }),
    );
    assert.deepEqual(results, messages.map((_, i) => i % 3 !== 0));
  });

  test('garbage keys are false, and other algorithms verify on the calling thread', async () => {
    assert.equal(await pool.verify('ML-DSA-87', new Uint8Array(3), new Uint8Array(1), new Uint8Array(2)), false);
    const ed = await generateKeyPair('ED25519');
    const m = new Uint8Array([1, 2, 3]);
    assert.equal(await pool.verify('ED25519', ed.publicKey, m, await sign('ED25519', ed.secretKey, m)), true);
  });
});
