/**
 * Evidence signing keys, one store per signing service (core, platform, runtime, nav). A key
 * is created on first use, kept in the database and named by a key id; rotation retires the
 * active key, which keeps verifying what it signed and stays published. Public keys are
 * published in the CONTRACT's key-list shape so that anyone can verify bundles offline.
 */
import { randomBytes } from 'node:crypto';
import { generateKeyPair } from '../../engines/crypto/algorithms.ts';
import { openSecret, sealSecret } from '../secrets/index.ts';
import type { Sql } from '../storage/database.ts';

export const EVIDENCE_ALGORITHMS = ['ML-DSA-65', 'ML-DSA-87'] as const;
export type EvidenceAlgorithm = (typeof EVIDENCE_ALGORITHMS)[number];

export function isEvidenceAlgorithm(value: unknown): value is EvidenceAlgorithm {
  return typeof value === 'string' && (EVIDENCE_ALGORITHMS as readonly string[]).includes(value);
}

export interface EvidenceKey {
  key_id: string;
  service: string;
  algorithm: EvidenceAlgorithm;
  public_key: Uint8Array;
  secret_key: Uint8Array;
  status: 'active' | 'retired';
  created_at: Date;
}

/** One published public key: `public_key` is standard base64 of the raw FIPS 204 public key. */
export interface PublicKeyInfo {
  key_id: string;
  algorithm: string;
  public_key: string;
  created_at: string;
  status: string;
}

/** The document served unauthenticated at `<evidence path>/keys` and read by `lattice evidence verify --keys`. */
export interface PublicKeysDocument {
  keys: PublicKeyInfo[];
}

const ALGORITHM_TAG: Record<EvidenceAlgorithm, string> = { 'ML-DSA-65': 'mldsa65', 'ML-DSA-87': 'mldsa87' };

/** bytea arrives as a Buffer from node-postgres and a Uint8Array from PGlite: copy to a plain Uint8Array. */
export function toBytes(value: unknown): Uint8Array {
  return Uint8Array.from(value as Uint8Array);
}

function rowToKey(row: Record<string, unknown>): EvidenceKey {
  return {
    ...(row as unknown as EvidenceKey),
    public_key: toBytes(row.public_key),
    // Kept sealed under the master key (platform/secrets); opened only in memory.
    secret_key: Uint8Array.from(openSecret('evidence_signing_keys.secret_key', toBytes(row.secret_key))),
    created_at: new Date(row.created_at as string | Date),
  };
}

/** A key row in the published key-list shape; the licensing service publishes its keys in it too. */
export function toPublic(row: { key_id: string; algorithm: string; public_key: unknown; created_at: unknown; status: string }): PublicKeyInfo {
  return {
    key_id: row.key_id,
    algorithm: row.algorithm,
    public_key: Buffer.from(toBytes(row.public_key)).toString('base64'),
    created_at: new Date(row.created_at as string | Date).toISOString(),
    status: row.status,
  };
}

export class EvidenceKeys {
  // A key id never changes its key: the cache can only be incomplete, never wrong.
  private readonly byId = new Map<string, EvidenceKey>();

  constructor(
    private readonly db: Sql,
    readonly service: string,
  ) {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(service)) throw new TypeError(`invalid evidence service name '${service}'`);
  }

  /** The active key for `algorithm`, created when there is none yet. */
  async active(algorithm: EvidenceAlgorithm = 'ML-DSA-65'): Promise<EvidenceKey> {
    if (!isEvidenceAlgorithm(algorithm)) throw new TypeError(`evidence is signed with ML-DSA-65 or ML-DSA-87, not '${String(algorithm)}'`);
    const select = () =>
      this.db.query(`SELECT * FROM evidence_signing_keys WHERE service = $1 AND algorithm = $2 AND status = 'active'`, [
        this.service,
        algorithm,
      ]);
    let [row] = await select();
    if (!row) {
      await this.create(algorithm);
      [row] = await select();
    }
    const key = rowToKey(row!);
    this.byId.set(key.key_id, key);
    return key;
  }

  /** Inserts a new active key unless another process just did (the unique index decides). */
  private async create(algorithm: EvidenceAlgorithm): Promise<void> {
    const kp = await generateKeyPair(algorithm);
    const keyId = `${this.service}-${ALGORITHM_TAG[algorithm]}-${randomBytes(6).toString('hex')}`;
    await this.db.query(
      `INSERT INTO evidence_signing_keys (key_id, service, algorithm, public_key, secret_key)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (service, algorithm) WHERE status = 'active' DO NOTHING`,
      [keyId, this.service, algorithm, Buffer.from(kp.publicKey), sealSecret('evidence_signing_keys.secret_key', kp.secretKey)],
    );
  }

  /** Any key of this service, active or retired. */
  async byKeyId(keyId: string): Promise<EvidenceKey | undefined> {
    const cached = this.byId.get(keyId);
    if (cached) return cached;
    const [row] = await this.db.query('SELECT * FROM evidence_signing_keys WHERE key_id = $1 AND service = $2', [keyId, this.service]);
    if (!row) return undefined;
    const key = rowToKey(row);
    this.byId.set(keyId, key);
    return key;
  }

  /** Retires the active key for `algorithm` and creates its successor; returns the new key. */
  async rotate(algorithm: EvidenceAlgorithm = 'ML-DSA-65'): Promise<EvidenceKey> {
    await this.db.query(
      `UPDATE evidence_signing_keys SET status = 'retired', retired_at = now()
        WHERE service = $1 AND algorithm = $2 AND status = 'active'`,
      [this.service, algorithm],
    );
    return this.active(algorithm);
  }

  /**
   * Every key this service ever signed with, oldest first, in the CONTRACT's key-list shape.
   * Creates the ML-DSA-65 key first when the service has none, so the list is never empty.
   */
  async publicKeys(): Promise<PublicKeysDocument> {
    const load = () =>
      this.db.query<{ key_id: string; algorithm: string; public_key: unknown; created_at: Date; status: string }>(
        `SELECT key_id, algorithm, public_key, created_at, status FROM evidence_signing_keys
          WHERE service = $1 ORDER BY created_at, key_id`,
        [this.service],
      );
    let rows = await load();
    if (rows.length === 0) {
      await this.active('ML-DSA-65');
      rows = await load();
    }
    return { keys: rows.map(toPublic) };
  }
}

/** Every evidence key of every service in the store: what `lattice evidence verify` checks against locally. */
export async function allPublishedKeys(db: Sql): Promise<PublicKeysDocument> {
  const rows = await db.query<{ key_id: string; algorithm: string; public_key: unknown; created_at: Date; status: string }>(
    `SELECT key_id, algorithm, public_key, created_at, status FROM evidence_signing_keys ORDER BY created_at, key_id`,
  );
  return { keys: rows.map(toPublic) };
}
