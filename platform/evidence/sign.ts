/**
 * Signing and checking the bytes of a bundle: ML-DSA (FIPS 204, pure, empty context) over the
 * RFC 8785 canonical JSON of the bundle without its signature fields. Which fields those are
 * is each profile's business (profiles.ts); here the caller hands in the unsigned object.
 */
import { sign, verify } from '../../engines/crypto/algorithms.ts';
import { canonicalJson } from './hash.ts';
import { isEvidenceAlgorithm, type EvidenceAlgorithm, type EvidenceKeys, type PublicKeyInfo } from './keys.ts';

export interface EvidenceSignature {
  algorithm: EvidenceAlgorithm;
  key_id: string;
  /** Standard base64 of the raw ML-DSA signature. */
  signature: string;
}

/** The exact bytes that are signed: the UTF-8 of the canonical JSON of the unsigned bundle. */
export function signedBytes(unsigned: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson(unsigned));
}

/** Signs `unsigned` with the service's active key for `algorithm`. */
export async function signEvidence(keys: EvidenceKeys, unsigned: unknown, algorithm: EvidenceAlgorithm = 'ML-DSA-65'): Promise<EvidenceSignature> {
  const key = await keys.active(algorithm);
  const signature = await sign(key.algorithm, key.secret_key, signedBytes(unsigned));
  return { algorithm: key.algorithm, key_id: key.key_id, signature: Buffer.from(signature).toString('base64') };
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Decodes strict standard base64; null for anything else. */
export function decodeBase64(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || !BASE64.test(text) || text.length % 4 !== 0) return null;
  const bytes = new Uint8Array(Buffer.from(text, 'base64'));
  // Reject non-canonical encodings (stray bits in the padding): re-encoding must give the text back.
  return Buffer.from(bytes).toString('base64') === text ? bytes : null;
}

/**
 * Checks one signature against a published key. Returns null when valid, else the reason.
 * `claimedAlgorithm` is what the bundle says; it must be the key's algorithm.
 */
export async function checkSignature(
  key: PublicKeyInfo | undefined,
  claimedAlgorithm: unknown,
  unsigned: unknown,
  signatureBase64: unknown,
): Promise<string | null> {
  if (!key) return 'the signing key is not among the published keys';
  if (!isEvidenceAlgorithm(key.algorithm)) return `the key's algorithm ${key.algorithm} is not an evidence algorithm`;
  if (claimedAlgorithm !== key.algorithm) return `the bundle names algorithm ${String(claimedAlgorithm)} but key ${key.key_id} is ${key.algorithm}`;
  const publicKey = decodeBase64(key.public_key);
  if (!publicKey) return `key ${key.key_id} has no valid base64 public key`;
  const signature = decodeBase64(signatureBase64);
  if (!signature) return 'the signature is not standard base64';
  const ok = await verify(key.algorithm, publicKey, signedBytes(unsigned), signature);
  return ok ? null : `the ${key.algorithm} signature does not match the bundle's canonical JSON`;
}
