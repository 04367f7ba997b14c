/** GET /api/v1/v2/revocation — the signed revocation set, whole or since an epoch. */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { revocationSet } from '../artifacts/revocations.ts';
import type { LicensingDeps } from '../deps.ts';
import { DetailError } from '../errors.ts';
import { bearerSecurity } from './schemas.ts';

const RevocationSet = Type.Object(
  {
    epoch: Type.Integer(),
    since_epoch: Type.Union([Type.Integer(), Type.Null()]),
    account_id: Type.String(),
    revoked_ids: Type.Array(Type.String()),
    restored_ids: Type.Array(Type.String()),
    entries: Type.Array(
      Type.Object({
        license_id: Type.String(),
        reason: Type.String(),
        revoked_at: Type.String(),
        effective_until: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    issued_at: Type.String(),
    valid_until: Type.String(),
    key_id: Type.String(),
    signature: Type.String({ description: 'base64 ML-DSA-65 over the RFC 8785 JSON of the set without this field' }),
  },
  { $id: 'RevocationSet' },
);

export function registerRevocationSet(app: ServiceApp, deps: LicensingDeps): void {
  app.get(
    '/api/v1/v2/revocation',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: ['Variant A: artifacts'],
        summary: 'Signed revocation set of the calling account',
        security: bearerSecurity,
        querystring: Type.Object({ since_epoch: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) }),
        response: { 200: RevocationSet, '4xx': DetailError },
      },
    },
    async (req) =>
      revocationSet(deps.ctx.db, deps.keys, identityOf(req).accountId, req.query.since_epoch ?? null, deps.ctx.now()),
  );
}
