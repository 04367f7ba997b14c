/**
 * API keys and service tokens: `<prefix>_<32 base62 characters>`, shown once at creation,
 * stored only as a SHA-256 hash. Authentication finds the key by its hash (an index lookup,
 * so no comparison of secrets happens in our code path) and then compares the hashes in
 * constant time as a second guard.
 */
import { timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../../engines/crypto/encoding.ts';
import { ApiError } from '../http/errors.ts';
import type { Sql } from '../storage/database.ts';
import { newId, randomBase62 } from './ids.ts';
import { notify } from '../storage/channels.ts';

export type KeyKind = 'api_key' | 'service_token';

export interface NewKey {
  accountId: string;
  service: string;
  prefix: string;
  kind?: KeyKind;
  name?: string | null;
  /** `member` or `admin`, or one of the service's own roles (ServiceDefinition.roles). */
  role?: string;
  scopes?: string[];
  expiresAt?: Date | null;
}

export interface CreatedKey {
  id: string;
  key: string;
  account_id: string;
  service: string;
  kind: KeyKind;
  role: string;
  scopes: string[];
  expires_at: Date | null;
  created_at: Date;
}

/** Who a request is, once its key checked out. */
export interface Identity {
  keyId: string;
  accountId: string;
  service: string;
  kind: KeyKind;
  role: string;
  scopes: string[];
  plan: string | null;
  expiresAt: Date | null;
}

export function hashKey(key: string): string {
  return sha256Hex(key);
}

export async function createKey(db: Sql, input: NewKey): Promise<CreatedKey> {
  const key = `${input.prefix}_${randomBase62(32)}`;
  const [row] = await db.query<CreatedKey>(
    `INSERT INTO api_keys (id, account_id, service, kind, prefix, key_hash, last4, name, role, scopes, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     RETURNING id, account_id, service, kind, role, scopes, expires_at, created_at`,
    [
      newId('key'),
      input.accountId,
      input.service,
      input.kind ?? 'api_key',
      input.prefix,
      hashKey(key),
      key.slice(-4),
      input.name ?? null,
      input.role ?? 'member',
      input.scopes ?? [],
      input.expiresAt ?? null,
    ],
  );
  return { ...row!, key };
}

export async function revokeKey(db: Sql, id: string): Promise<boolean> {
  const rows = await db.query('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING id', [id]);
  if (rows.length === 0) throw new ApiError(404, 'not_found', `Key not found: ${id}`);
  // Tells every process caching key lookups to drop them (see key-cache.ts).
  await notify(db, 'lattice_api_keys', id);
  return true;
}

interface KeyRow {
  id: string;
  account_id: string;
  service: string;
  kind: KeyKind;
  key_hash: string;
  role: string;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  plan: string | null;
}

/**
 * The identity behind `rawKey` for `service`, or null when the key is unknown, revoked,
 * expired, of another kind, or belongs to another service.
 */
export async function authenticateKey(
  db: Sql,
  rawKey: string,
  service: string,
  kind: KeyKind = 'api_key',
  now: Date = new Date(),
): Promise<Identity | null> {
  if (rawKey.length < 8 || rawKey.length > 256) return null;
  const hash = hashKey(rawKey);
  const [row] = await db.query<KeyRow>(
    `SELECT k.id, k.account_id, k.service, k.kind, k.key_hash, k.role, k.scopes, k.expires_at, k.revoked_at, p.plan
       FROM api_keys k
       LEFT JOIN account_plans p ON p.account_id = k.account_id AND p.service = k.service
      WHERE k.key_hash = $1`,
    [hash],
  );
  if (!row) return null;
  if (!timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  if (row.service !== service || row.kind !== kind) return null;
  if (row.revoked_at) return null;
  if (row.expires_at && new Date(row.expires_at).getTime() <= now.getTime()) return null;
  return {
    keyId: row.id,
    accountId: row.account_id,
    service: row.service,
    kind: row.kind,
    role: row.role,
    scopes: row.scopes,
    plan: row.plan,
    expiresAt: row.expires_at,
  };
}
