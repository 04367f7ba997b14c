/** GET /api/v1/licenses/{license_key} — one license of the calling account (404 for any other). */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { DetailError } from '../errors.ts';
import { normalizeLicenseKey } from '../keys/format.ts';
import { findLicense } from '../keys/store.ts';
import { TAG_B, apiKeySecurity, type VariantBDeps } from './b-context.ts';
import { LicenseDetail, detail } from './b-views.ts';

export const licenseNotFound = () => new ApiError(404, 'not_found', 'License not found');

export function registerDetail(app: ServiceApp, deps: VariantBDeps): void {
  app.get(
    '/api/v1/licenses/:license_key',
    {
      preValidation: deps.apiKeyAuth,
      schema: {
        tags: [TAG_B],
        summary: 'License detail',
        security: apiKeySecurity,
        params: Type.Object({ license_key: Type.String({ maxLength: 128 }) }),
        response: { 200: LicenseDetail, '4xx': DetailError },
      },
    },
    async (req) => {
      const key = normalizeLicenseKey(req.params.license_key);
      const row = key ? await findLicense(deps.ctx.db, identityOf(req).accountId, key) : null;
      if (!row) throw licenseNotFound();
      return detail(row, deps.ctx.now());
    },
  );
}
