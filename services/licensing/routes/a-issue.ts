/** POST /api/v1/v2/licenses — issues a signed license artifact for the calling account. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { issueLicense } from '../artifacts/issue.ts';
import type { LicensingDeps } from '../deps.ts';
import { DetailError } from '../errors.ts';
import { Fingerprint, IsoDateTime, bearerSecurity } from './schemas.ts';

const Body = Type.Object({
  entitlements: Type.Array(Type.String({ minLength: 3, maxLength: 128 }), { maxItems: 256 }),
  expires_at: Type.Optional(IsoDateTime),
  not_before: Type.Optional(IsoDateTime),
  grace_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, default: 0 })),
  device_fingerprint: Type.Optional(Type.Union([Fingerprint, Type.Null()])),
  max_mismatches: Type.Optional(Type.Integer({ minimum: 0, maximum: 31 })),
  hybrid: Type.Optional(Type.Boolean({ default: false, description: 'Also sign with RSA-PSS-SHA256.' })),
});

export function registerIssue(app: ServiceApp, deps: LicensingDeps): void {
  app.post(
    '/api/v1/v2/licenses',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: ['Variant A: artifacts'],
        summary: 'Issue a license artifact (compact and JSON forms)',
        security: bearerSecurity,
        body: Body,
        response: {
          201: Type.Object({
            license_id: Type.String(),
            artifact_compact: Type.String(),
            artifact_json: Type.String(),
            expires_at: Type.String(),
            not_before: Type.String(),
            entitlements: Type.Array(Type.String()),
          }),
          '4xx': DetailError,
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const issued = await issueLicense(
        deps.ctx.db,
        deps.keys,
        {
          accountId: identityOf(req).accountId,
          entitlements: b.entitlements,
          expiresAt: b.expires_at ? new Date(b.expires_at) : null,
          notBefore: b.not_before ? new Date(b.not_before) : null,
          graceDays: b.grace_days,
          fingerprint: b.device_fingerprint,
          maxMismatches: b.max_mismatches,
          hybrid: b.hybrid,
        },
        deps.ctx.now(),
      );
      reply.code(201);
      return {
        license_id: issued.license_id,
        artifact_compact: issued.artifact_compact,
        artifact_json: issued.artifact_json,
        expires_at: issued.payload.expires_at,
        not_before: issued.payload.not_before,
        entitlements: issued.payload.entitlements,
      };
    },
  );
}
