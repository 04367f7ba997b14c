/** POST /api/v1/kms/verify — verifies a signature over base64 data (service token). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { DetailError } from '../errors.ts';
import { kmsVerify } from '../kms/kms.ts';
import { TAG_KMS, serviceTokenSecurity, type VariantBDeps } from './b-context.ts';
import { AlgorithmField, Base64Data, KeyIdField, decodeBase64 } from './b-kms-sign.ts';

export function registerKmsVerify(app: ServiceApp, deps: VariantBDeps): void {
  app.post(
    '/api/v1/kms/verify',
    {
      preValidation: deps.serviceTokenAuth,
      schema: {
        tags: [TAG_KMS],
        summary: 'Verify a signature (an invalid signature is a 200 with valid false)',
        security: serviceTokenSecurity,
        body: Type.Object({
          data: Base64Data,
          signature: Type.String({ minLength: 1, maxLength: 16_384 }),
          key_id: KeyIdField,
          algorithm: AlgorithmField,
        }),
        response: {
          200: Type.Object({
            valid: Type.Boolean(),
            key_id: Type.String(),
            algorithm: Type.String(),
            verified_at: Type.String(),
            data_hash: Type.String(),
          }),
          '4xx': DetailError,
        },
      },
    },
    async (req) =>
      kmsVerify(
        deps.ctx.db,
        deps.keys,
        {
          data: decodeBase64(req.body.data, 'data'),
          signature: decodeBase64(req.body.signature, 'signature'),
          keyId: req.body.key_id ?? 'default',
          algorithm: req.body.algorithm ?? 'ML-DSA-65',
        },
        deps.ctx.now(),
      ),
  );
}
