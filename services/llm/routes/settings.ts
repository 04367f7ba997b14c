/** A tenant's settings: read and update (admin key, or the tenant's own key). */
import type { ServiceApp } from '../../../platform/http/app.ts';
import { pathTenant } from '../caller.ts';
import { commonErrors } from '../errors.ts';
import { checkSettings } from '../settings.ts';
import { forgetTenants, type TenantSettings } from '../tenants.ts';
import { begin, bearerSecurity, TAG, type QDeps } from './context.ts';
import { Settings, SettingsPatch, TenantIdParams } from './schemas.ts';

export function registerSettings(app: ServiceApp, deps: QDeps): void {
  const db = deps.ctx.db;
  app.get(
    '/v1/tenants/:tenant_id/settings',
    {
      preValidation: deps.bearerAuth,
      schema: { tags: [TAG.tenants], summary: 'Read a tenant’s settings', security: bearerSecurity, params: TenantIdParams, response: { 200: Settings, ...commonErrors } },
    },
    async (req) => {
      const caller = await begin(deps, req);
      return (await pathTenant(db, caller, req.params.tenant_id)).settings;
    },
  );

  app.patch(
    '/v1/tenants/:tenant_id/settings',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.tenants],
        summary: 'Update a tenant’s settings (only the fields sent change)',
        security: bearerSecurity,
        params: TenantIdParams,
        body: SettingsPatch,
        response: { 200: Settings, ...commonErrors },
      },
    },
    async (req) => {
      const caller = await begin(deps, req);
      const t = await pathTenant(db, caller, req.params.tenant_id);
      const patch = req.body as Partial<TenantSettings>;
      checkSettings(deps.language, patch);
      const settings = { ...t.settings, ...patch };
      await db.query('UPDATE llm_tenants SET settings = $2, updated_at = now() WHERE id = $1', [t.id, JSON.stringify(settings)]);
      await forgetTenants(db);
      return settings;
    },
  );
}
