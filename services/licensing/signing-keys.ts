/**
 * The licensing service's signing keys. Each is created on first use, kept in the database
 * and named by a key id; rotation retires the active key (it keeps verifying what it signed
 * and stays published) and makes a new one. Public keys are cached by id: a key id never
 * changes its key, so the cache can never be wrong, only incomplete (a miss reloads).
 */
import { randomBytes } from 'node:crypto';
import { generateKeyPair, type Algorithm } from '../../engines/crypto/index.ts';
import { toBytes, toPublic, type PublicKeyInfo } from '../../platform/evidence/keys.ts';
import { openSecret, sealSecret } from '../../platform/secrets/index.ts';
import type { Sql } from '../../platform/storage/database.ts';

export type KeyPurpose = 'artifact' | 'kms';

export interface SigningKey {
  key_id: string;
  purpose: KeyPurpose;
  name: string;
  algorithm: Algorithm;
  public_key: Uint8Array;
  secret_key: Uint8Array;
  status: 'active' | 'retired';
  created_at: Date;
}

const ALGORITHM_TAG: Record<Algorithm, string> = {
  'ML-DSA-44': 'mldsa44',
  'ML-DSA-65': 'mldsa65',
  'ML-DSA-87': 'mldsa87',
  ED25519: 'ed25519',
  'RSA-PSS-SHA256': 'rsa3072',
};

function rowToKey(row: Record<string, unknown>): SigningKey {
  return {
    ...(row as unknown as SigningKey),
    public_key: toBytes(row.public_key),
    // Kept sealed under the master key (platform/secrets); opened only in memory.
    secret_key: Uint8Array.from(openSecret('licensing_signing_keys.secret_key', toBytes(row.secret_key))),
  };
}

export class SigningKeys {
  private readonly byId = new Map<string, SigningKey>();

  constructor(private readonly db: Sql) {}

  /** The active key for purpose/name/algorithm, created when there is none yet. */
  async active(purpose: KeyPurpose, algorithm: Algorithm, name = 'default'): Promise<SigningKey> {
    const select = () =>
      this.db.query(
        `SELECT * FROM licensing_signing_keys WHERE purpose = $1 AND name = $2 AND algorithm = $3 AND status = 'active'`,
        [purpose, name, algorithm],
      );
    let [row] = await select();
    if (!row) {
      await this.create(purpose, algorithm, name);
      [row] = await select();
    }
    const key = rowToKey(row!);
    this.byId.set(key.key_id, key);
    return key;
  }

  /** Inserts a new active key unless another process just did (the unique index decides). */
  private async create(purpose: KeyPurpose, algorithm: Algorithm, name: string): Promise<void> {
    const kp = await generateKeyPair(algorithm);
    const keyId = `${ALGORITHM_TAG[algorithm]}-${randomBytes(6).toString('hex')}`;
    await this.db.query(
      `INSERT INTO licensing_signing_keys (key_id, purpose, name, algorithm, public_key, secret_key)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (purpose, name, algorithm) WHERE status = 'active' DO NOTHING`,
      [keyId, purpose, name, algorithm, Buffer.from(kp.publicKey), sealSecret('licensing_signing_keys.secret_key', kp.secretKey)],
    );
  }

  async byKeyId(keyId: string): Promise<SigningKey | undefined> {
    const cached = this.byId.get(keyId);
    if (cached) return cached;
    const [row] = await this.db.query('SELECT * FROM licensing_signing_keys WHERE key_id = $1', [keyId]);
    if (!row) return undefined;
    const key = rowToKey(row);
    this.byId.set(keyId, key);
    return key;
  }

  /** Cached lookup only: for hot paths that already warmed the cache with `byKeyId`. */
  cached(keyId: string): SigningKey | undefined {
    return this.byId.get(keyId);
  }

  /** Retires the active key and creates its successor; returns the new key. */
  async rotate(purpose: KeyPurpose, algorithm: Algorithm, name = 'default'): Promise<SigningKey> {
    await this.db.query(
      `UPDATE licensing_signing_keys SET status = 'retired', retired_at = now()
        WHERE purpose = $1 AND name = $2 AND algorithm = $3 AND status = 'active'`,
      [purpose, name, algorithm],
    );
    return this.active(purpose, algorithm, name);
  }

  async published(purpose: KeyPurpose): Promise<PublicKeyInfo[]> {
    const rows = await this.db.query<{ key_id: string; algorithm: string; public_key: unknown; created_at: Date; status: string }>(
      `SELECT key_id, algorithm, public_key, created_at, status FROM licensing_signing_keys
        WHERE purpose = $1 ORDER BY created_at, key_id`,
      [purpose],
    );
    return rows.map(toPublic);
  }
}
