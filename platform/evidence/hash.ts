/** The two encodings every evidence bundle is built on: `sha3-256:<hex>` hashes and RFC 8785 canonical JSON. */
import { canonicalJson, sha3_256Hex } from '../../engines/crypto/encoding.ts';

export { canonicalJson };

const HASH_FORMAT = /^sha3-256:[0-9a-f]{64}$/;

/**
 * `sha3-256:` followed by the lower-case hex SHA3-256 of `data` (a string hashes as its UTF-8 bytes).
 *
 * @example sha3Hash('') // 'sha3-256:a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a'
 */
export function sha3Hash(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return `sha3-256:${sha3_256Hex(bytes)}`;
}

/** `sha3Hash` of the canonical JSON of `value`: the hash of a JSON object, independent of key order. */
export function sha3HashJson(value: unknown): string {
  return sha3Hash(canonicalJson(value));
}

/** True when `value` is a well-formed `sha3-256:<64 lower-case hex>` string. */
export function isSha3Hash(value: unknown): value is string {
  return typeof value === 'string' && HASH_FORMAT.test(value);
}
