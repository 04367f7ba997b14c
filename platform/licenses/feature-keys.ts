/**
 * Feature license keys: `LQK-XXXX-XXXX-XXXX` (60 random bits in Crockford base 32), issued
 * by the operator for a service with a list of features (`lattice licenses issue-key`),
 * revocable (`lattice licenses revoke-key`), and checked on every request that uses a
 * licensed feature, straight from the database, so that a revocation takes effect on the
 * very next request in every process. Only the key's SHA-256 is stored.
 *
 * @example
 * const { license_key } = await issueFeatureKey(db, { service: 'llm', features: ['lora_training'] });
 * await checkFeatureKey(db, { key: license_key, service: 'llm', feature: 'lora_training' }); // {ok: true, ...}
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../storage/database.ts';

export const FEATURE_KEY_PATTERN = /^LQK-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export interface IssuedFeatureKey {
  license_key: string;
  service: string;
  features: string[];
  expires_at: string | null;
}

export type FeatureCheck =
  | { ok: true; features: string[] }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' | 'other_service' | 'feature_not_licensed' | 'other_account' };

function hash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function newKey(): string {
  // 32 symbols: each random byte's low five bits pick one with equal probability.
  const bytes = randomBytes(12);
  const chars = [...bytes].map((b) => ALPHABET[b & 31]).join('');
  return `LQK-${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
}

export async function issueFeatureKey(
  db: Sql,
  input: { service: string; features: string[]; accountId?: string | null; expiresAt?: Date | null },
): Promise<IssuedFeatureKey> {
  const features = [...new Set(input.features.map((f) => f.trim()).filter(Boolean))];
  if (features.length === 0) throw new Error('a license key needs at least one feature');
  if (features.some((f) => !/^[a-z0-9_:.-]{1,64}$/.test(f))) throw new Error('features are lower-case names of letters, digits, _ : . -');
  if (input.expiresAt && Number.isNaN(input.expiresAt.getTime())) throw new Error('expires_at is not a date');
  const key = newKey();
  await db.query(
    `INSERT INTO license_feature_keys (key_hash, last4, service, account_id, features, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [hash(key), key.slice(-4), input.service, input.accountId ?? null, features, input.expiresAt ?? null],
  );
  return { license_key: key, service: input.service, features, expires_at: input.expiresAt ? input.expiresAt.toISOString() : null };
}

/** Revokes a key; false when no such key exists. Revoking twice is not an error. */
export async function revokeFeatureKey(db: Sql, key: string): Promise<boolean> {
  const rows = await db.query('UPDATE license_feature_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE key_hash = $1 RETURNING key_hash', [hash(key.trim())]);
  return rows.length > 0;
}

/**
 * Whether `key` unlocks `feature` of `service` now. A key issued for an account unlocks the
 * feature only for that account's callers; one issued without an account, for any caller.
 */
export async function checkFeatureKey(
  db: Sql,
  input: { key: string | null | undefined; service: string; feature: string; accountId?: string; now?: Date },
): Promise<FeatureCheck> {
  const key = input.key?.trim();
  if (!key) return { ok: false, reason: 'missing' };
  if (!FEATURE_KEY_PATTERN.test(key)) return { ok: false, reason: 'malformed' };
  const [row] = await db.query<{ service: string; account_id: string | null; features: string[]; expires_at: Date | null; revoked_at: Date | null }>(
    'SELECT service, account_id, features, expires_at, revoked_at FROM license_feature_keys WHERE key_hash = $1',
    [hash(key)],
  );
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.revoked_at) return { ok: false, reason: 'revoked' };
  const now = input.now ?? new Date();
  if (row.expires_at && new Date(row.expires_at).getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
  if (row.service !== input.service) return { ok: false, reason: 'other_service' };
  if (row.account_id && input.accountId && row.account_id !== input.accountId) return { ok: false, reason: 'other_account' };
  if (!row.features.includes(input.feature)) return { ok: false, reason: 'feature_not_licensed' };
  return { ok: true, features: row.features };
}
