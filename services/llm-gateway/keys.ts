/**
 * API keys of the console: created with the default scopes, listed without secrets, limits
 * kept beside the identity's key row, revoked permanently. Every statement is scoped to the
 * caller's workspace (account), so another workspace's key is simply "not found".
 */
import { createKey } from '../../platform/identity/keys.ts';
import { KEY_CHANGES_CHANNEL } from '../../platform/identity/key-cache.ts';
import type { Sql } from '../../platform/storage/database.ts';
import { errors } from './errors.ts';
import { GATEWAY_KEY_PREFIX, GATEWAY_SCOPES } from './scopes.ts';
import { notify } from '../../platform/storage/channels.ts';

export const SERVICE_ID = 'llm-gateway';
/** Scopes of a new key (CONTRACT); a key created with no scopes at all has these too. */
export const DEFAULT_SCOPES: string[] = [...GATEWAY_SCOPES];

export interface KeyLimits {
  spendLimitMicros: number | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
}

export interface KeyView {
  id: string;
  name: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  scopes: string[];
  spendLimit: number | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
}

interface KeyRow {
  id: string;
  name: string | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  scopes: string[];
  spend_limit_micros: number | string | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

function view(r: KeyRow): KeyView {
  return {
    id: r.id,
    name: r.name,
    createdAt: iso(r.created_at)!,
    expiresAt: iso(r.expires_at),
    lastUsedAt: iso(r.last_used_at),
    scopes: r.scopes.length ? r.scopes : DEFAULT_SCOPES,
    spendLimit: r.spend_limit_micros === null ? null : Number(r.spend_limit_micros) / 1e6,
    rpmLimit: r.rpm_limit,
    tpmLimit: r.tpm_limit,
  };
}

const SELECT = `SELECT k.id, k.name, k.created_at, k.expires_at, k.last_used_at, k.scopes, l.spend_limit_micros, l.rpm_limit, l.tpm_limit
  FROM api_keys k LEFT JOIN llm_gateway_key_limits l ON l.key_id = k.id
 WHERE k.account_id = $1 AND k.service = '${SERVICE_ID}' AND k.kind = 'api_key' AND k.revoked_at IS NULL`;

export async function createConsoleKey(
  db: Sql,
  accountId: string,
  name: string,
  scopes: string[] = DEFAULT_SCOPES,
): Promise<{ id: string; name: string; key: string; createdAt: string }> {
  const created = await createKey(db, { accountId, service: SERVICE_ID, prefix: GATEWAY_KEY_PREFIX, name, scopes });
  return { id: created.id, name, key: created.key, createdAt: new Date(created.created_at).toISOString() };
}

/** The scopes a console request asks for: a non-empty list of the gateway's, each once. */
export function checkScopes(value: unknown): string[] {
  const known: readonly string[] = GATEWAY_SCOPES;
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string' || !known.includes(v))) {
    throw errors.invalid(`scopes must be a non-empty list of ${known.join(', ')}`);
  }
  return known.filter((s) => value.includes(s));
}

export async function listKeys(db: Sql, accountId: string): Promise<KeyView[]> {
  return (await db.query<KeyRow>(`${SELECT} ORDER BY k.created_at, k.id`, [accountId])).map(view);
}

export async function getKey(db: Sql, accountId: string, id: string): Promise<KeyView> {
  const [row] = await db.query<KeyRow>(`${SELECT} AND k.id = $2`, [accountId, id]);
  if (!row) throw errors.keyNotFound();
  return view(row);
}

export interface KeyPatch {
  name?: string;
  spendLimitMicros?: number | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
}

export async function updateKey(db: Sql, accountId: string, id: string, patch: KeyPatch): Promise<KeyView> {
  const current = await getKey(db, accountId, id);
  if (patch.name !== undefined) {
    await db.query('UPDATE api_keys SET name = $3 WHERE id = $2 AND account_id = $1', [accountId, id, patch.name]);
  }
  if (patch.spendLimitMicros !== undefined || patch.rpmLimit !== undefined || patch.tpmLimit !== undefined) {
    const spend = patch.spendLimitMicros !== undefined ? patch.spendLimitMicros : current.spendLimit === null ? null : Math.round(current.spendLimit * 1e6);
    await db.query(
      `INSERT INTO llm_gateway_key_limits (key_id, spend_limit_micros, rpm_limit, tpm_limit) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key_id) DO UPDATE SET spend_limit_micros = EXCLUDED.spend_limit_micros, rpm_limit = EXCLUDED.rpm_limit, tpm_limit = EXCLUDED.tpm_limit`,
      [id, spend, patch.rpmLimit !== undefined ? patch.rpmLimit : current.rpmLimit, patch.tpmLimit !== undefined ? patch.tpmLimit : current.tpmLimit],
    );
  }
  if (patch.spendLimitMicros !== undefined) {
    // The limit is on everything the key ever spent: start its count from the recorded
    // charges plus the key's open holds, then holds and settlements keep it (platform/billing).
    await db.query(
      `INSERT INTO billing_spend (scope, used_micros)
       SELECT $1, (SELECT COALESCE(SUM(cost_micros), 0) FROM llm_gateway_usage WHERE key_id = $2)
                + (SELECT COALESCE(SUM(amount_micros), 0) FROM billing_holds WHERE limit_scope = $1 AND status = 'open')
       ON CONFLICT (scope) DO UPDATE SET used_micros = EXCLUDED.used_micros`,
      [spendScope(id), id],
    );
  }
  return getKey(db, accountId, id);
}

/** The billing limit scope of a key's spendLimit. */
export function spendScope(keyId: string): string {
  return `llm-key:${keyId}`;
}

export async function revokeConsoleKey(db: Sql, accountId: string, id: string): Promise<void> {
  const rows = await db.query(
    `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND service = '${SERVICE_ID}' AND kind = 'api_key' AND revoked_at IS NULL RETURNING id`,
    [id, accountId],
  );
  if (rows.length === 0) throw errors.keyNotFound();
  // Every process drops its cached lookups of this key at once (platform/identity/key-cache.ts).
  await notify(db, KEY_CHANGES_CHANNEL, id);
}

/** Limits of one key for a call: one primary-key read, none when the key has no row. */
export async function limitsOf(db: Sql, keyId: string): Promise<KeyLimits> {
  const [row] = await db.query<{ spend_limit_micros: number | string | null; rpm_limit: number | null; tpm_limit: number | null }>(
    'SELECT spend_limit_micros, rpm_limit, tpm_limit FROM llm_gateway_key_limits WHERE key_id = $1',
    [keyId],
  );
  return {
    spendLimitMicros: row?.spend_limit_micros === null || row?.spend_limit_micros === undefined ? null : Number(row.spend_limit_micros),
    rpmLimit: row?.rpm_limit ?? null,
    tpmLimit: row?.tpm_limit ?? null,
  };
}
