/**
 * Tenants (admin keys): create (returns the tenant's own `api_key`, once), list with
 * `limit`/`offset`/`tier`, get, update, delete. A tenant key may read its own tenant only.
 * Deleting a tenant revokes its key at once (every process drops its cached lookup) and
 * removes its data: completions, feedback, datasets and their indexes, training jobs and
 * adapters, webhooks scoped to it, and its usage counters.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { createKey, revokeKey } from '../../../platform/identity/keys.ts';
import { newId } from '../../../platform/identity/ids.ts';
import { deleteWebhook, listWebhooks } from '../../../platform/webhooks/index.ts';
import { dropNamespace } from '../../../engines/language/retrieval/store.ts';
import { pathTenant, requireAdmin } from '../caller.ts';
import { commonErrors, qError } from '../errors.ts';
import { Q_KEY_PREFIX, tierName, TIERS } from '../plans.ts';
import { checkSettings } from '../settings.ts';
import { forgetTenants, listTenants, tenantView, withDefaults, type TenantRow, type TenantSettings } from '../tenants.ts';
import { begin, bearerSecurity, TAG, type QDeps } from './context.ts';
import { SettingsPatch, Tenant, TenantIdParams, Tier, extend, listOf } from './schemas.ts';
import { datasetNamespace } from './datasets.ts';

function tier(name: string): string {
  const t = tierName(name);
  if (!t) throw qError('INVALID_REQUEST', `tier must be one of ${TIERS.join(', ')}`);
  return t;
}

const SLUG = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$';

function slugify(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64).replace(/-+$/, '') || 'tenant';
}

export function registerTenants(app: ServiceApp, deps: QDeps): void {
  const db = deps.ctx.db;

  app.post(
    '/v1/tenants',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.tenants],
        summary: 'Create a tenant (admin key); the response holds its api_key, shown only here',
        security: bearerSecurity,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            slug: Type.Optional(Type.String({ pattern: SLUG, description: 'Lower-case letters, digits and dashes; unique in the account (default: from the name)' })),
            tier: Type.Optional(Tier),
            settings: Type.Optional(SettingsPatch),
          },
          { additionalProperties: false },
        ),
        response: { 201: extend(Tenant, Type.Object({ api_key: Type.String() })), ...commonErrors },
      },
    },
    async (req, reply) => {
      const caller = await begin(deps, req);
      requireAdmin(caller);
      const body = req.body;
      const slug = body.slug ?? slugify(body.name);
      const tierOf = tier(body.tier ?? 'free');
      const patch = (body.settings ?? {}) as Partial<TenantSettings>;
      checkSettings(deps.language, patch);
      const settings = withDefaults(patch, deps.language.config.default_chat_model);
      const id = newId('ten');
      const created = await db.transaction(async (tx) => {
        const taken = await tx.query('SELECT 1 FROM llm_tenants WHERE account_id = $1 AND slug = $2', [caller.accountId, slug]);
        if (taken.length) throw qError('INVALID_REQUEST', `A tenant with slug "${slug}" already exists`);
        const key = await createKey(tx, { accountId: caller.accountId, service: 'llm', prefix: Q_KEY_PREFIX, name: `tenant ${slug}` });
        const [row] = await tx.query<TenantRow>(
          `INSERT INTO llm_tenants (id, account_id, name, slug, tier, settings, key_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
           RETURNING id, account_id, name, slug, tier, settings, key_id, adapter_job_id, created_at, updated_at`,
          [id, caller.accountId, body.name, slug, tierOf, JSON.stringify(settings), key.id],
        );
        return { row: row!, key: key.key };
      });
      await deps.events.emit(caller.accountId, id, 'tenant.created', { tenant: tenantView(created.row) });
      reply.code(201);
      return { ...tenantView(created.row), api_key: created.key };
    },
  );

  app.get(
    '/v1/tenants',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.tenants],
        summary: 'List the account’s tenants (admin key)',
        security: bearerSecurity,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
          offset: Type.Integer({ minimum: 0, default: 0 }),
          tier: Type.Optional(Tier),
        }),
        response: { 200: listOf(Tenant), ...commonErrors },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      requireAdmin(caller);
      const { limit, offset } = req.query;
      const { rows, total } = await listTenants(db, caller.accountId, { limit, offset, ...(req.query.tier ? { tier: tier(req.query.tier) } : {}) });
      return { data: rows.map(tenantView), total, limit, offset };
    },
  );

  app.get(
    '/v1/tenants/:tenant_id',
    {
      preValidation: deps.bearerAuth,
      schema: { tags: [TAG.tenants], summary: 'Read a tenant', security: bearerSecurity, params: TenantIdParams, response: { 200: Tenant, ...commonErrors } },
    },
    async (req) => {
      const caller = await begin(deps, req);
      return tenantView(await pathTenant(db, caller, req.params.tenant_id));
    },
  );

  app.patch(
    '/v1/tenants/:tenant_id',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.tenants],
        summary: 'Update a tenant’s name, tier or settings (admin key)',
        security: bearerSecurity,
        params: TenantIdParams,
        body: Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), tier: Type.Optional(Tier), settings: Type.Optional(SettingsPatch) }, { additionalProperties: false }),
        response: { 200: Tenant, ...commonErrors },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      requireAdmin(caller);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const patch = (req.body.settings ?? {}) as Partial<TenantSettings>;
      checkSettings(deps.language, patch);
      const [row] = await db.query<TenantRow>(
        `UPDATE llm_tenants SET name = $2, tier = $3, settings = $4, updated_at = now() WHERE id = $1
         RETURNING id, account_id, name, slug, tier, settings, key_id, adapter_job_id, created_at, updated_at`,
        [t.id, req.body.name ?? t.name, req.body.tier ? tier(req.body.tier) : t.tier, JSON.stringify({ ...t.settings, ...patch })],
      );
      await forgetTenants(db);
      return tenantView(row!);
    },
  );

  app.delete(
    '/v1/tenants/:tenant_id',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.tenants],
        summary: 'Delete a tenant and all its data (admin key); its key stops working at once',
        security: bearerSecurity,
        params: TenantIdParams,
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }), ...commonErrors },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      requireAdmin(caller);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      await revokeKey(db, t.key_id);
      const datasets = await db.query<{ id: string }>('SELECT id FROM llm_datasets WHERE tenant_id = $1', [t.id]);
      for (const d of datasets) await dropNamespace(db, datasetNamespace(d.id));
      for (const w of await listWebhooks(db, { accountId: caller.accountId, service: 'llm', scope: t.id })) {
        await deleteWebhook(db, { accountId: caller.accountId, service: 'llm', scope: t.id }, w.id);
      }
      await db.query('DELETE FROM llm_tenants WHERE id = $1', [t.id]);
      await forgetTenants(db);
      await deps.limits.forget(t.id);
      return { id: t.id, deleted: true };
    },
  );
}
