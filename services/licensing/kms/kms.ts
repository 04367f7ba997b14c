/**
 * The KMS of variant B: signs and verifies the raw data bytes (pure ML-DSA of FIPS 204 with an
 * empty context, or Ed25519) and reports their SHA3-256 in lower-case hex, as the contract says.
 *
 * `key_id` is either a key name (`default`, or any name matching KEY_NAME: signing with a new
 * name creates its key) or the exact id of one key as returned by sign and listed at
 * /api/v1/kms/keys. Verifying by name tries every key of that name and algorithm, retired ones
 * included, so signatures made before a rotation keep verifying.
 */
import { sign, verify, sha3_256Hex, type Algorithm } from '../../../engines/crypto/index.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import type { Sql } from '../../../platform/storage/database.ts';
import type { SigningKey, SigningKeys } from '../signing-keys.ts';

export const KMS_ALGORITHMS = ['ML-DSA-65', 'ML-DSA-87', 'ED25519'] as const;
export type KmsAlgorithm = (typeof KMS_ALGORITHMS)[number];
export const KEY_NAME = '^[A-Za-z0-9._-]{1,64}$';

interface KeyRecord {
  key_id: string;
  name: string;
  algorithm: string;
  status: string;
}

/** The KMS key whose id is exactly `keyId`, read fresh (its status may have changed in another process). */
async function exactKey(db: Sql, keyId: string): Promise<KeyRecord | null> {
  const [row] = await db.query<KeyRecord>(
    `SELECT key_id, name, algorithm, status FROM licensing_signing_keys WHERE key_id = $1 AND purpose = 'kms'`,
    [keyId],
  );
  return row ?? null;
}

async function load(keys: SigningKeys, keyId: string): Promise<SigningKey> {
  const key = await keys.byKeyId(keyId);
  if (!key) throw new ApiError(404, 'key_not_found', `Key not found: ${keyId}`);
  return key;
}

function wrongAlgorithm(record: KeyRecord, algorithm: string): ApiError {
  return new ApiError(400, 'algorithm_mismatch', `Key ${record.key_id} is an ${record.algorithm} key, not ${algorithm}`);
}

export interface SignatureResult {
  signature: string;
  key_id: string;
  algorithm: KmsAlgorithm;
  signed_at: string;
  data_hash: string;
}

export async function kmsSign(
  db: Sql,
  keys: SigningKeys,
  input: { data: Uint8Array; keyId: string; algorithm: KmsAlgorithm },
  now: Date,
): Promise<SignatureResult> {
  const record = await exactKey(db, input.keyId);
  let key: SigningKey;
  if (record) {
    if (record.algorithm !== input.algorithm) throw wrongAlgorithm(record, input.algorithm);
    if (record.status !== 'active') {
      throw new ApiError(400, 'key_retired', `Key ${record.key_id} is retired; sign with key_id "${record.name}" to use its successor`);
    }
    key = await load(keys, record.key_id);
  } else {
    key = await keys.active('kms', input.algorithm as Algorithm, input.keyId);
  }
  const signature = await sign(key.algorithm, key.secret_key, input.data);
  return {
    signature: Buffer.from(signature).toString('base64'),
    key_id: key.key_id,
    algorithm: input.algorithm,
    signed_at: now.toISOString(),
    data_hash: sha3_256Hex(input.data),
  };
}

export interface VerifyResult {
  valid: boolean;
  key_id: string;
  algorithm: KmsAlgorithm;
  verified_at: string;
  data_hash: string;
}

export async function kmsVerify(
  db: Sql,
  keys: SigningKeys,
  input: { data: Uint8Array; signature: Uint8Array; keyId: string; algorithm: KmsAlgorithm },
  now: Date,
): Promise<VerifyResult> {
  const record = await exactKey(db, input.keyId);
  let candidates: string[];
  if (record) {
    if (record.algorithm !== input.algorithm) throw wrongAlgorithm(record, input.algorithm);
    candidates = [record.key_id];
  } else {
    // Newest first: the active key is the likely signer.
    const rows = await db.query<{ key_id: string }>(
      `SELECT key_id FROM licensing_signing_keys WHERE purpose = 'kms' AND name = $1 AND algorithm = $2
        ORDER BY (status = 'active') DESC, created_at DESC`,
      [input.keyId, input.algorithm],
    );
    if (rows.length === 0) throw new ApiError(404, 'key_not_found', `Key not found: ${input.keyId} (${input.algorithm})`);
    candidates = rows.map((r) => r.key_id);
  }
  let matched: string | null = null;
  for (const id of candidates) {
    const key = await load(keys, id);
    if (await verify(key.algorithm, key.public_key, input.data, input.signature)) {
      matched = id;
      break;
    }
  }
  return {
    valid: matched !== null,
    key_id: matched ?? candidates[0]!,
    algorithm: input.algorithm,
    verified_at: now.toISOString(),
    data_hash: sha3_256Hex(input.data),
  };
}

/** Makes sure the `default` key of every KMS algorithm exists, so /api/v1/kms/keys lists them from the start. */
export async function ensureDefaultKmsKeys(keys: SigningKeys): Promise<void> {
  for (const algorithm of KMS_ALGORITHMS) await keys.active('kms', algorithm);
}
