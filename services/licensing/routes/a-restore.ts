/** DELETE /api/v1/v2/revoke/{license_id} — restores a revoked or suspended license. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { restore } from '../artifacts/revocations.ts';
import type { LicensingDeps } from '../deps.ts';
import { DetailError } from '../errors.ts';
import { bearerSecurity } from './schemas.ts';

export function registerRestore(app: ServiceApp, deps: LicensingDeps): void {
  app.delete(
    '/api/v1/v2/revoke/:license_id',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: ['Variant A: artifacts'],
        summary: 'Restore a revoked license (409 when it is not revoked)',
        security: bearerSecurity,
        params: Type.Object({ license_id: Type.String({ maxLength: 64 }) }),
        response: {
          200: Type.Object({ success: Type.Boolean(), license_id: Type.String(), epoch: Type.Integer(), message: Type.String() }),
          '4xx': DetailError,
        },
      },
    },
    async (req) =>
      restore(deps.ctx.db, { licenseId: req.params.license_id, accountId: identityOf(req).accountId }, deps.ctx.now()).finally(() =>
        deps.artifactValidator.revocationsChanged(),
      ),
  );
}
