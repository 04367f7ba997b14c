/**
 * Envelope encryption of stored secrets, as key stores do it: each secret is encrypted with a
 * data key of its own (AES-256-GCM), and that data key is stored beside it wrapped (encrypted,
 * AES-256-GCM again) by the master key. Rotating the master key re-wraps the data keys only;
 * the secret's own ciphertext never changes.
 *
 * A sealed secret, as bytes:
 *   "LSE1" | master fingerprint (8) | wrap iv (12) | wrapped data key (32) | wrap tag (16)
 *          | iv (12) | tag (16) | ciphertext
 * The secret's purpose (`table.column`) is authenticated with it, so a sealed value copied into
 * another column does not open. In a text column it is kept as `lse1:` and the base64 of those bytes.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const MAGIC = Buffer.from('LSE1');
const TEXT_PREFIX = 'lse1:';
const FP_BYTES = 8;
const HEADER = MAGIC.length + FP_BYTES + 12 + 32 + 16 + 12 + 16;

export class SecretError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SecretError';
  }
}

/** The master key's fingerprint: a keyed hash that names the key without revealing it. */
export function fingerprint(masterKey: Buffer): string {
  return createHmac('sha256', masterKey).update('lattice master key fingerprint').digest('hex');
}

function gcm(key: Buffer, iv: Buffer, data: Buffer, aad: string): { ct: Buffer; tag: Buffer } {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(data), cipher.final()]);
  return { ct, tag: cipher.getAuthTag() };
}

function ungcm(key: Buffer, iv: Buffer, ct: Buffer, tag: Buffer, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ct), decipher.final()]);
}

export function isSealed(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith(TEXT_PREFIX);
  if (value instanceof Uint8Array) return value.length >= HEADER && Buffer.from(value.subarray(0, 4)).equals(MAGIC);
  return false;
}

/** The fingerprint prefix (hex) of the master key a sealed value is wrapped under. */
export function sealedUnder(value: Uint8Array | string): string {
  const bytes = toSealedBytes(value);
  return bytes.subarray(MAGIC.length, MAGIC.length + FP_BYTES).toString('hex');
}

function toSealedBytes(value: Uint8Array | string): Buffer {
  if (typeof value === 'string') {
    if (!value.startsWith(TEXT_PREFIX)) throw new SecretError('not_sealed', 'the stored value is not an encrypted secret');
    return Buffer.from(value.slice(TEXT_PREFIX.length), 'base64');
  }
  return Buffer.from(value);
}

export function seal(masterKey: Buffer, purpose: string, plaintext: Uint8Array): Buffer {
  const dataKey = randomBytes(32);
  const wrapIv = randomBytes(12);
  const fp = Buffer.from(fingerprint(masterKey), 'hex').subarray(0, FP_BYTES);
  const wrapped = gcm(masterKey, wrapIv, dataKey, `wrap:${purpose}`);
  const iv = randomBytes(12);
  const body = gcm(dataKey, iv, Buffer.from(plaintext), purpose);
  dataKey.fill(0);
  return Buffer.concat([MAGIC, fp, wrapIv, wrapped.ct, wrapped.tag, iv, body.tag, body.ct]);
}

export function sealText(masterKey: Buffer, purpose: string, plaintext: string): string {
  return TEXT_PREFIX + seal(masterKey, purpose, Buffer.from(plaintext, 'utf8')).toString('base64');
}

interface Parts {
  fp: Buffer;
  wrapIv: Buffer;
  wrapped: Buffer;
  wrapTag: Buffer;
  iv: Buffer;
  tag: Buffer;
  ct: Buffer;
}

function parse(bytes: Buffer): Parts {
  if (bytes.length < HEADER || !bytes.subarray(0, 4).equals(MAGIC)) throw new SecretError('not_sealed', 'the stored value is not an encrypted secret');
  let at = MAGIC.length;
  const take = (n: number) => bytes.subarray(at, (at += n));
  return { fp: take(FP_BYTES), wrapIv: take(12), wrapped: take(32), wrapTag: take(16), iv: take(12), tag: take(16), ct: bytes.subarray(at) };
}

function unwrap(masterKey: Buffer, purpose: string, parts: Parts): Buffer {
  try {
    return ungcm(masterKey, parts.wrapIv, parts.wrapped, parts.wrapTag, `wrap:${purpose}`);
  } catch {
    throw new SecretError('wrong_master_key', `a stored secret (${purpose}) does not open with the master key: it was encrypted under another one`);
  }
}

/** The secret in a sealed value; `keyFor` gives the master key of a fingerprint prefix, or null. */
export function open(keyFor: (fp: string) => Buffer | null, purpose: string, value: Uint8Array | string): Buffer {
  const parts = parse(toSealedBytes(value));
  const master = keyFor(parts.fp.toString('hex'));
  if (!master) {
    throw new SecretError('unknown_master_key', `a stored secret (${purpose}) is encrypted under master key ${parts.fp.toString('hex')}, which this process does not have`);
  }
  const dataKey = unwrap(master, purpose, parts);
  try {
    return ungcm(dataKey, parts.iv, parts.ct, parts.tag, purpose);
  } catch {
    throw new SecretError('tampered', `a stored secret (${purpose}) fails its integrity check`);
  } finally {
    dataKey.fill(0);
  }
}

/** The same sealed value with its data key wrapped under `to` instead of `from`. */
export function rewrap(from: Buffer, to: Buffer, purpose: string, value: Uint8Array | string): Buffer | string {
  const parts = parse(toSealedBytes(value));
  const dataKey = unwrap(from, purpose, parts);
  const wrapIv = randomBytes(12);
  const wrapped = gcm(to, wrapIv, dataKey, `wrap:${purpose}`);
  dataKey.fill(0);
  const fp = Buffer.from(fingerprint(to), 'hex').subarray(0, FP_BYTES);
  const bytes = Buffer.concat([MAGIC, fp, wrapIv, wrapped.ct, wrapped.tag, parts.iv, parts.tag, parts.ct]);
  return typeof value === 'string' ? TEXT_PREFIX + bytes.toString('base64') : bytes;
}
