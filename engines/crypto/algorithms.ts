/**
 * The signature algorithms Lattice signs with, behind one interface:
 * ML-DSA-44/65/87 (FIPS 204, pure mode, empty context), Ed25519 and RSA-PSS with SHA-256.
 *
 * ML-DSA runs on liboqs compiled to WebAssembly (about ten times faster than the pure
 * JavaScript implementation here); @noble/post-quantum is the independent second
 * implementation the tests cross-check it against.
 *
 * @example
 *   const kp = await generateKeyPair('ML-DSA-65');
 *   const sig = await sign('ML-DSA-65', kp.secretKey, bytes);
 *   await verify('ML-DSA-65', kp.publicKey, bytes, sig); // true
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as nodeSign, verify as nodeVerify, constants } from 'node:crypto';
import type { createMLDSA65 } from '@oqs/liboqs-js';

export const ALGORITHMS = ['ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87', 'ED25519', 'RSA-PSS-SHA256'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export function isAlgorithm(value: unknown): value is Algorithm {
  return typeof value === 'string' && (ALGORITHMS as readonly string[]).includes(value);
}

export interface KeyPair {
  /** ML-DSA: the FIPS 204 encoding; Ed25519: 32 raw bytes; RSA: DER SubjectPublicKeyInfo. */
  publicKey: Uint8Array;
  /** ML-DSA: the FIPS 204 encoding; Ed25519 and RSA: DER PKCS#8. */
  secretKey: Uint8Array;
}

interface OqsSigner {
  generateKeyPair(): { publicKey: Uint8Array; secretKey: Uint8Array };
  sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array;
  verify(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean;
}

type OqsAlgorithm = 'ML-DSA-44' | 'ML-DSA-65' | 'ML-DSA-87';
const oqsSigners = new Map<string, Promise<OqsSigner>>();

// liboqs rejects Buffer and other Uint8Array subclasses: hand it plain arrays.
const plain = (bytes: Uint8Array): Uint8Array => (bytes.constructor === Uint8Array ? bytes : Uint8Array.from(bytes));

/**
 * The package's entry loads all of its algorithms (about a hundred modules, 1.2 MB of
 * JavaScript: a third of a licensing service's start), where Lattice signs with ML-DSA only.
 * Each ML-DSA module is loaded by its file, next to the entry (the package's exports name no
 * such path), when the algorithm is first used.
 */
async function oqsFactory(alg: OqsAlgorithm): Promise<typeof createMLDSA65> {
  const level = alg.slice('ML-DSA-'.length);
  const file = new URL(`./algorithms/sig/ml-dsa/ml-dsa-${level}.js`, import.meta.resolve('@oqs/liboqs-js'));
  const module = (await import(file.href)) as Record<string, typeof createMLDSA65>;
  return module[`createMLDSA${level}`]!;
}

function oqs(alg: OqsAlgorithm): Promise<OqsSigner> {
  let signer = oqsSigners.get(alg);
  if (!signer) {
    signer = oqsFactory(alg).then((create) => create() as Promise<OqsSigner>);
    oqsSigners.set(alg, signer);
  }
  return signer;
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function ed25519PublicKey(raw: Uint8Array) {
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

export async function generateKeyPair(alg: Algorithm): Promise<KeyPair> {
  switch (alg) {
    case 'ML-DSA-44':
    case 'ML-DSA-65':
    case 'ML-DSA-87': {
      const kp = (await oqs(alg)).generateKeyPair();
      return { publicKey: kp.publicKey, secretKey: kp.secretKey };
    }
    case 'ED25519': {
      const kp = generateKeyPairSync('ed25519');
      const spki = kp.publicKey.export({ format: 'der', type: 'spki' });
      return {
        publicKey: new Uint8Array(spki.subarray(ED25519_SPKI_PREFIX.length)),
        secretKey: new Uint8Array(kp.privateKey.export({ format: 'der', type: 'pkcs8' })),
      };
    }
    case 'RSA-PSS-SHA256': {
      const kp = generateKeyPairSync('rsa', { modulusLength: 3072 });
      return {
        publicKey: new Uint8Array(kp.publicKey.export({ format: 'der', type: 'spki' })),
        secretKey: new Uint8Array(kp.privateKey.export({ format: 'der', type: 'pkcs8' })),
      };
    }
  }
}

const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };

export async function sign(alg: Algorithm, secretKey: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  switch (alg) {
    case 'ML-DSA-44':
    case 'ML-DSA-65':
    case 'ML-DSA-87':
      return (await oqs(alg)).sign(plain(message), plain(secretKey));
    case 'ED25519':
      return nodeSign(null, message, createPrivateKey({ key: Buffer.from(secretKey), format: 'der', type: 'pkcs8' }));
    case 'RSA-PSS-SHA256':
      return nodeSign('sha256', message, {
        key: createPrivateKey({ key: Buffer.from(secretKey), format: 'der', type: 'pkcs8' }),
        ...PSS,
      });
  }
}

/** True only for a valid signature; malformed keys or signatures verify as false, never throw. */
export async function verify(alg: Algorithm, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  try {
    switch (alg) {
      case 'ML-DSA-44':
      case 'ML-DSA-65':
      case 'ML-DSA-87':
        return (await oqs(alg)).verify(plain(message), plain(signature), plain(publicKey));
      case 'ED25519':
        return nodeVerify(null, message, ed25519PublicKey(publicKey), signature);
      case 'RSA-PSS-SHA256':
        return nodeVerify(
          'sha256',
          message,
          { key: createPublicKey({ key: Buffer.from(publicKey), format: 'der', type: 'spki' }), ...PSS },
          signature,
        );
    }
  } catch {
    return false;
  }
}
