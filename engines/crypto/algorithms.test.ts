import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { ALGORITHMS, generateKeyPair, sign, verify } from './algorithms.ts';
import { canonicalJson, fromBase64, sha3_256Hex } from './encoding.ts';

const message = new TextEncoder().encode('lattice: the message that gets signed');

describe('signature algorithms', () => {
  for (const alg of ALGORITHMS) {
    test(`${alg} signs and verifies, and rejects a changed message or signature`, async () => {
      const kp = await generateKeyPair(alg);
      const sig = await sign(alg, kp.secretKey, message);
      assert.equal(await verify(alg, kp.publicKey, message, sig), true);
      const other = Uint8Array.from(message);
      other[0]! ^= 1;
      assert.equal(await verify(alg, kp.publicKey, other, sig), false);
      const bad = Uint8Array.from(sig);
      bad[bad.length >> 1]! ^= 0x40;
      assert.equal(await verify(alg, kp.publicKey, message, bad), false);
    });
  }

  test('malformed keys and signatures verify as false instead of throwing', async () => {
    for (const alg of ALGORITHMS) {
      assert.equal(await verify(alg, new Uint8Array(5), message, new Uint8Array(7)), false, alg);
    }
  });

  test('liboqs (WebAssembly) and @noble/post-quantum accept each other’s ML-DSA signatures', async () => {
    for (const [alg, noble] of [
      ['ML-DSA-65', ml_dsa65],
      ['ML-DSA-87', ml_dsa87],
    ] as const) {
      const ours = await generateKeyPair(alg);
      const sig = await sign(alg, ours.secretKey, message);
      assert.equal(noble.verify(sig, message, ours.publicKey), true, `${alg}: noble verifies liboqs`);
      const theirs = noble.keygen(new Uint8Array(32).fill(9));
      const nobleSig = noble.sign(message, theirs.secretKey);
      assert.equal(await verify(alg, theirs.publicKey, message, nobleSig), true, `${alg}: liboqs verifies noble`);
      // A secret key in the FIPS 204 encoding from one library signs in the other.
      const crossSig = await sign(alg, theirs.secretKey, message);
      assert.equal(noble.verify(crossSig, message, theirs.publicKey), true);
    }
  });

  test('SHA3-256 and canonical JSON match their standards', () => {
    // FIPS 202 test value for the empty message.
    assert.equal(sha3_256Hex(new Uint8Array()), 'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a');
    assert.equal(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1e21, y: 0.5 } }), '{"a":[true,null,"x"],"b":1,"c":{"y":0.5,"z":1e+21}}');
    assert.equal(fromBase64('not base64!'), null);
  });
});

// OpenSSL's ML-DSA through pyca/cryptography: a third, independent implementation.
const python = spawnSync('python3', ['-c', 'from cryptography.hazmat.primitives.asymmetric import mldsa'], { encoding: 'utf8' });
const haveOpenSsl = python.status === 0;

describe('cross-check with OpenSSL (pyca/cryptography)', { skip: haveOpenSsl ? false : 'python3 cryptography with ML-DSA not installed' }, () => {
  function runPython(script: string, input: Record<string, string>): Record<string, string> {
    const out = spawnSync('python3', ['-c', script], { input: JSON.stringify(input), encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    return JSON.parse(out.stdout) as Record<string, string>;
  }

  test('key generation from the same 32-byte seed gives the same public key (FIPS 204 KeyGen)', () => {
    for (let i = 0; i < 4; i++) {
      const seed = new Uint8Array(32).map((_, j) => (j * 31 + i * 7) & 0xff);
      const ours = ml_dsa65.keygen(seed).publicKey;
      const theirs = runPython(
        `import json,sys
from cryptography.hazmat.primitives.asymmetric import mldsa
d=json.load(sys.stdin)
k=mldsa.MLDSA65PrivateKey.from_seed_bytes(bytes.fromhex(d['seed']))
print(json.dumps({'pk': k.public_key().public_bytes_raw().hex()}))`,
        { seed: Buffer.from(seed).toString('hex') },
      );
      assert.equal(theirs.pk, Buffer.from(ours).toString('hex'));
    }
  });

  test('OpenSSL verifies our ML-DSA-65 signature, and we verify OpenSSL’s', async () => {
    const kp = await generateKeyPair('ML-DSA-65');
    const sig = await sign('ML-DSA-65', kp.secretKey, message);
    const result = runPython(
      `import json,sys
from cryptography.hazmat.primitives.asymmetric import mldsa
d=json.load(sys.stdin)
pk=mldsa.MLDSA65PublicKey.from_public_bytes(bytes.fromhex(d['pk']))
msg=bytes.fromhex(d['msg'])
ok='yes'
try:
    pk.verify(bytes.fromhex(d['sig']), msg)
except Exception:
    ok='no'
k=mldsa.MLDSA65PrivateKey.from_seed_bytes(bytes(range(32)))
print(json.dumps({'ok': ok, 'pk2': k.public_key().public_bytes_raw().hex(), 'sig2': k.sign(msg).hex()}))`,
      { pk: Buffer.from(kp.publicKey).toString('hex'), sig: Buffer.from(sig).toString('hex'), msg: Buffer.from(message).toString('hex') },
    );
    assert.equal(result.ok, 'yes');
    assert.equal(
      await verify('ML-DSA-65', new Uint8Array(Buffer.from(result.pk2!, 'hex')), message, new Uint8Array(Buffer.from(result.sig2!, 'hex'))),
      true,
    );
  });
});
