/** Tenants of an account: rows, reads in the CONTRACT's shape, settings with their defaults. */
import { announceChange, onChange } from '../../platform/storage/changes.ts';
import type { Database, Sql } from '../../platform/storage/database.ts';

export interface TenantSettings {
  default_model: string;
  max_tokens_per_request: number;
  enable_rerank: boolean;
  rerank_tier: 'classic' | 'quantum_cpu' | 'quantum_gpu';
  custom_system_prompt: string | null;
  /** Feedback samples usable for training before stats say `ready_for_training`. */
  min_feedback_count: number;
}

export interface TenantRow {
  id: string;
  account_id: string;
  name: string;
  slug: string;
  tier: string;
  settings: TenantSettings;
  key_id: string;
  adapter_job_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export const DEFAULT_SETTINGS: TenantSettings = {
  default_model: 'lattice-tiny',
  max_tokens_per_request: 512,
  enable_rerank: false,
  rerank_tier: 'classic',
  custom_system_prompt: null,
  min_feedback_count: 10,
};

export function withDefaults(s: Partial<TenantSettings> | null | undefined, defaultModel: string): TenantSettings {
  return { ...DEFAULT_SETTINGS, default_model: defaultModel, ...(s ?? {}) };
}

export function tenantView(t: TenantRow): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    slug: t.slug,
    tier: t.tier,
    settings: t.settings,
    created_at: new Date(t.created_at).toISOString(),
    updated_at: new Date(t.updated_at).toISOString(),
  };
}

const COLUMNS = 'id, account_id, name, slug, tier, settings, key_id, adapter_job_id, created_at, updated_at';

/**
 * Tenants by key, cached for `CACHE_MS`: every request reads its tenant, and settings change
 * rarely. A change (update, delete, a finished training job) is announced to every process of
 * the cluster (platform/storage/changes.ts), and each clears its cache before its next
 * request; CACHE_MS bounds what a change made outside Lattice (SQL by hand) takes to be seen.
 * The cache is the store's, not the module's: each store an app runs on (the app's
 * `ctx.db`, which every caller passes) has its own, dropped with the store (a WeakMap), so
 * two apps of one process on two stores never see each other's tenants.
 */
const CACHE_MS = 2_000;
const caches = new WeakMap<Sql, Map<string, { row: TenantRow | null; at: number }>>();
export const TENANT_CHANGES = 'llm.tenants';

function cacheOf(db: Sql): Map<string, { row: TenantRow | null; at: number }> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  return cache;
}

/** Drops the cached tenants of this store here and in every other process. */
export async function forgetTenants(db: Sql): Promise<void> {
  cacheOf(db).clear();
  await announceChange(db, TENANT_CHANGES, '*');
}

/** Clears this store's cache whenever another process announces a tenant change. */
export async function followTenantChanges(db: Database): Promise<() => void> {
  return onChange(db, TENANT_CHANGES, () => cacheOf(db).clear());
}

export async function tenantByKey(db: Sql, keyId: string): Promise<TenantRow | null> {
  const byKey = cacheOf(db);
  const hit = byKey.get(keyId);
  if (hit && performance.now() - hit.at < CACHE_MS) return hit.row;
  const [row] = await db.query<TenantRow>(`SELECT ${COLUMNS} FROM llm_tenants WHERE key_id = $1`, [keyId]);
  if (byKey.size > 10_000) byKey.clear();
  byKey.set(keyId, { row: row ?? null, at: performance.now() });
  return row ?? null;
}

/** The tenant `ref` (its id or its slug) of `accountId`, or null. */
export async function tenantOf(db: Sql, accountId: string, ref: string): Promise<TenantRow | null> {
  const [row] = await db.query<TenantRow>(`SELECT ${COLUMNS} FROM llm_tenants WHERE account_id = $1 AND (id = $2 OR slug = $2)`, [accountId, ref]);
  return row ?? null;
}

export async function listTenants(db: Sql, accountId: string, o: { limit: number; offset: number; tier?: string }): Promise<{ rows: TenantRow[]; total: number }> {
  const params: unknown[] = [accountId];
  let where = 'account_id = $1';
  if (o.tier) {
    params.push(o.tier);
    where += ` AND tier = $${params.length}`;
  }
  const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM llm_tenants WHERE ${where}`, params);
  const rows = await db.query<TenantRow>(
    `SELECT ${COLUMNS} FROM llm_tenants WHERE ${where} ORDER BY created_at, id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, o.limit, o.offset],
  );
  return { rows, total: count?.n ?? 0 };
}
