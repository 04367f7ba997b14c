/** POST /api/v1/v2/revoke — revokes a license permanently, or suspends it until `effective_until`. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { REVOCATION_REASONS, revoke } from '../artifacts/revocations.ts';
import type { LicensingDeps } from '../deps.ts';
import { DetailError } from '../errors.ts';
import { IsoDateTime, bearerSecurity } from './schemas.ts';

const Body = Type.Object({
  license_id: Type.String({ minLength: 1, maxLength: 64 }),
  reason: Type.Optional(Type.Enum(REVOCATION_REASONS, { default: 'unspecified' })),
  effective_until: Type.Optional(
    Type.Union([IsoDateTime, Type.Null()], { description: 'End of a suspension; null or omitted revokes permanently.' }),
  ),
});

const Result = Type.Object({
  success: Type.Boolean(),
  license_id: Type.String(),
  epoch: Type.Integer(),
  reason: Type.String(),
  revoked_at: Type.String(),
  effective_until: Type.Union([Type.String(), Type.Null()]),
});

export function registerRevoke(app: ServiceApp, deps: LicensingDeps): void {
  app.post(
    '/api/v1/v2/revoke',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: ['Variant A: artifacts'],
        summary: 'Revoke or suspend a license (the global epoch increments)',
        security: bearerSecurity,
        body: Body,
        response: { 200: Result, '4xx': DetailError },
      },
    },
    async (req) => {
      const result = await revoke(
        deps.ctx.db,
        {
          licenseId: req.body.license_id,
          accountId: identityOf(req).accountId,
          reason: req.body.reason ?? 'unspecified',
          effectiveUntil: req.body.effective_until ? new Date(req.body.effective_until) : null,
        },
        deps.ctx.now(),
      ).finally(() => deps.artifactValidator.revocationsChanged());
      return result;
    },
  );
}
