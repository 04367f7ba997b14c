/** POST /api/v1/licenses/{license_key}/revoke — revokes for good; a second revoke is a 400. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { DetailError } from '../errors.ts';
import { normalizeLicenseKey } from '../keys/format.ts';
import { revokeLicense } from '../keys/store.ts';
import { TAG_B, apiKeySecurity, type VariantBDeps } from './b-context.ts';
import { licenseNotFound } from './b-detail.ts';

const Body = Type.Union([Type.Object({ reason: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])) }), Type.Null()]);

export function registerRevoke(app: ServiceApp, deps: VariantBDeps): void {
  app.post(
    '/api/v1/licenses/:license_key/revoke',
    {
      preValidation: deps.apiKeyAuth,
      schema: {
        tags: [TAG_B],
        summary: 'Revoke a license (irreversible)',
        security: apiKeySecurity,
        params: Type.Object({ license_key: Type.String({ maxLength: 128 }) }),
        body: Body,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            license_key: Type.String(),
            revoked_at: Type.String(),
            reason: Type.Union([Type.String(), Type.Null()]),
            message: Type.String(),
          }),
          '4xx': DetailError,
        },
      },
    },
    async (req) => {
      const key = normalizeLicenseKey(req.params.license_key);
      if (!key) throw licenseNotFound();
      const reason = req.body?.reason ?? null;
      // The trigger's notice drops the row everywhere; here at once, not waiting for it to come back.
      const outcome = await deps.ctx.db
        .transaction((tx) => revokeLicense(tx, identityOf(req).accountId, key, reason, deps.ctx.now()))
        .finally(() => deps.licenseRows.drop(key));
      if (outcome === 'missing') throw licenseNotFound();
      if (outcome === 'already') throw new ApiError(400, 'already_revoked', 'License already revoked');
      return {
        success: true,
        license_key: outcome.license_key,
        revoked_at: outcome.revoked_at!.toISOString(),
        reason: outcome.revoked_reason,
        message: 'License revoked',
      };
    },
  );
}
