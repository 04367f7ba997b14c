/**
 * Feature license keys: `LQK-XXXX-XXXX-XXXX` (60 random bits in Crockford base 32), issued
 * by the operator for a service with a list of features (`lattice licenses issue-key`),
 * revocable (`lattice licenses revoke-key`), and checked on every request that uses a
 * licensed feature. Only the key's SHA-256 is stored.
 *
 * A check reads the key's row from memory (LicenseRows, one per store, by the key's hash):
 * kept up to 5 s, dropped by the trigger's change notice on every UPDATE or DELETE of the row
 * (a revocation by any process or by hand, an account's deletion cascading), so that a
 * revocation takes effect on the very next request in every process; a key that is not found
 * is read again on every check. A transaction, or a store that cannot listen, reads the table.
 *
 * @example
 * const { license_key } = await issueFeatureKey(db, { service: 'llm', features: ['lora_training'] });
 * await checkFeatureKey(db, { key: license_key, service: 'llm', feature: 'lora_training' }); // {ok: true, ...}
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../engines/crypto/encoding.ts';
import type { Database, Sql } from '../storage/database.ts';
import { LicenseRows } from './license-rows.ts';

/** The change-notice topic of license_feature_keys (its trigger, migrations.ts). */
export const FEATURE_KEYS_TOPIC = 'license-feature-keys';

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
    [sha256Hex(key), key.slice(-4), input.service, input.accountId ?? null, features, input.expiresAt ?? null],
  );
  return { license_key: key, service: input.service, features, expires_at: input.expiresAt ? input.expiresAt.toISOString() : null };
}

/** Revokes a key; false when no such key exists. Revoking twice is not an error. */
export async function revokeFeatureKey(db: Sql, key: string): Promise<boolean> {
  const keyHash = sha256Hex(key.trim());
  const rows = await db.query('UPDATE license_feature_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE key_hash = $1 RETURNING key_hash', [keyHash]);
  // The trigger's notice drops it everywhere; this process need not wait for it to come back.
  const kept = rowsOf.get(db);
  if (kept) (await kept)?.drop(keyHash);
  return rows.length > 0;
}

interface FeatureKeyRow {
  service: string;
  account_id: string | null;
  features: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
}

function readRow(db: Sql, keyHash: string): Promise<FeatureKeyRow | null> {
  return db
    .query<FeatureKeyRow>('SELECT service, account_id, features, expires_at, revoked_at FROM license_feature_keys WHERE key_hash = $1', [keyHash])
    .then((rows) => rows[0] ?? null);
}

/**
 * The rows kept in memory for each store, started on the first check against it (listening to
 * the table's change notices); null for a handle that cannot listen (a transaction). Dropped
 * with the store object itself.
 */
const rowsOf = new WeakMap<Sql, Promise<LicenseRows<FeatureKeyRow> | null>>();

function rowsFor(db: Sql): Promise<LicenseRows<FeatureKeyRow> | null> {
  let rows = rowsOf.get(db);
  if (!rows) {
    const store = db as Partial<Database>;
    rows =
      typeof store.listen === 'function'
        ? (async () => {
            const cache = new LicenseRows<FeatureKeyRow>(FEATURE_KEYS_TOPIC, (keyHash) => readRow(db, keyHash));
            await cache.start(db as Database);
            return cache;
          })().catch(() => null)
        : Promise.resolve(null);
    rowsOf.set(db, rows);
  }
  return rows;
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
  const keyHash = sha256Hex(key);
  const rows = await rowsFor(db);
  const row = rows ? await rows.get(keyHash) : await readRow(db, keyHash);
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.revoked_at) return { ok: false, reason: 'revoked' };
  const now = input.now ?? new Date();
  if (row.expires_at && new Date(row.expires_at).getTime() <= now.getTime()) return { ok: false, reason: 'expired' };
  if (row.service !== input.service) return { ok: false, reason: 'other_service' };
  if (row.account_id && input.accountId && row.account_id !== input.accountId) return { ok: false, reason: 'other_account' };
  if (!row.features.includes(input.feature)) return { ok: false, reason: 'feature_not_licensed' };
  return { ok: true, features: row.features };
}
