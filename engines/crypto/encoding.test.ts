import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { sha256, sha256Hex } from './encoding.ts';

// Stored hashes (API keys, license keys, session tokens) were written by the Hash object: the
// one-shot call must give the same digest for any string a client can send, lone surrogates included.
test('sha256 gives the Hash object\'s digest of a string as UTF-8 and of bytes, in hex and base64', () => {
  const inputs: (string | Uint8Array)[] = ['', 'lic_abc', 'é ∑ 😀 of a key', 'a\uD800b\uDFFF', 'x\u0000y', 'x'.repeat(5000), new Uint8Array([0, 1, 2, 255])];
  for (const input of inputs) {
    for (const encoding of ['hex', 'base64'] as const) {
      assert.equal(sha256(input, encoding), createHash('sha256').update(input).digest(encoding));
    }
    assert.equal(sha256Hex(input), createHash('sha256').update(input).digest('hex'));
  }
});
