/** GET /api/v1/licenses — the calling account's licenses, newest first, paged, optionally by status. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { DetailError } from '../errors.ts';
import { LICENSE_STATUSES, listLicenses } from '../keys/store.ts';
import { TAG_B, apiKeySecurity, type VariantBDeps } from './b-context.ts';
import { LicenseListItem, listItem } from './b-views.ts';

const Query = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  status_filter: Type.Optional(Type.Enum([...LICENSE_STATUSES])),
});

export function registerList(app: ServiceApp, deps: VariantBDeps): void {
  app.get(
    '/api/v1/licenses',
    {
      preValidation: deps.apiKeyAuth,
      schema: {
        tags: [TAG_B],
        summary: 'List licenses (status computed from revocation and expiry)',
        security: apiKeySecurity,
        querystring: Query,
        response: {
          200: Type.Object({
            licenses: Type.Array(LicenseListItem),
            total: Type.Integer(),
            page: Type.Integer(),
            per_page: Type.Integer(),
            total_pages: Type.Integer(),
          }),
          '4xx': DetailError,
        },
      },
    },
    async (req) => {
      const page = req.query.page ?? 1;
      const perPage = req.query.per_page ?? 50;
      const now = deps.ctx.now();
      const result = await listLicenses(deps.ctx.db, identityOf(req).accountId, {
        page,
        perPage,
        status: req.query.status_filter ?? null,
        now,
      });
      return {
        licenses: result.rows.map((row) => listItem(row, now)),
        total: result.total,
        page,
        per_page: perPage,
        total_pages: Math.ceil(result.total / perPage),
      };
    },
  );
}
