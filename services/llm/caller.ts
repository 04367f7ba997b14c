/**
 * Who a request acts for (CONTRACT "Variant Q keys"): an account admin key (`lattice keys
 * create --service llm --role admin`) reaches every tenant of its account and picks one with
 * `X-Tenant-ID` (a slug) for chat, embeddings, rerank and feedback; a tenant key (returned
 * when the tenant is created) reaches only its tenant, and an `X-Tenant-ID` it sends must name
 * that tenant (else 403). Another key of the service, neither admin nor tenant, is refused.
 * Tenants of another account, or other tenants seen from a tenant key, are 404: their
 * existence never leaks.
 */
import type { FastifyRequest } from 'fastify';
import { identityOf } from '../../platform/http/auth.ts';
import type { Sql } from '../../platform/storage/database.ts';
import { qError } from './errors.ts';
import { tenantByKey, tenantOf, type TenantRow } from './tenants.ts';

export interface Caller {
  accountId: string;
  keyId: string;
  admin: boolean;
  /** The account plan of an admin key (limits when it acts for no tenant). */
  plan: string | null;
  /** The tenant this request acts for: the key's own, or the one an admin names. */
  tenant: TenantRow | null;
}

function tenantHeader(req: FastifyRequest): string | null {
  const h = req.headers['x-tenant-id'];
  const v = Array.isArray(h) ? h[0] : h;
  return v && v.trim() ? v.trim() : null;
}

export async function resolveCaller(db: Sql, req: FastifyRequest): Promise<Caller> {
  const id = identityOf(req);
  const header = tenantHeader(req);
  const base = { accountId: id.accountId, keyId: id.keyId, plan: id.plan };
  if (id.role === 'admin') {
    if (!header) return { ...base, admin: true, tenant: null };
    const tenant = await tenantOf(db, id.accountId, header);
    if (!tenant) throw qError('TENANT_NOT_FOUND', `Tenant not found: ${header}`);
    return { ...base, admin: true, tenant };
  }
  const own = await tenantByKey(db, id.keyId);
  if (!own) throw qError('FORBIDDEN', 'This key is neither an admin key nor a tenant key of the language API');
  if (header && header !== own.slug && header !== own.id) throw qError('FORBIDDEN', 'X-Tenant-ID names another tenant than the one this key belongs to');
  return { ...base, admin: false, tenant: own };
}

export function requireAdmin(c: Caller): void {
  if (!c.admin) throw qError('FORBIDDEN', 'This route needs an admin key');
}

/** The tenant of a `/v1/tenants/{tenant_id}/...` path, as this caller may see it. */
export async function pathTenant(db: Sql, c: Caller, ref: string): Promise<TenantRow> {
  if (!c.admin) {
    if (c.tenant && (c.tenant.id === ref || c.tenant.slug === ref)) return c.tenant;
    throw qError('TENANT_NOT_FOUND', `Tenant not found: ${ref}`);
  }
  const t = await tenantOf(db, c.accountId, ref);
  if (!t) throw qError('TENANT_NOT_FOUND', `Tenant not found: ${ref}`);
  return t;
}
