/** POST /api/v1/kms/sign — signs base64 data for an internal service (service token). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { fromBase64 } from '../../../engines/crypto/index.ts';
import { DetailError } from '../errors.ts';
import { KEY_NAME, KMS_ALGORITHMS, kmsSign } from '../kms/kms.ts';
import { TAG_KMS, serviceTokenSecurity, type VariantBDeps } from './b-context.ts';

/** base64 of up to 128 KiB of data. */
export const Base64Data = Type.String({ maxLength: 174_764, description: 'standard base64' });
export const KeyIdField = Type.Optional(
  Type.String({ pattern: KEY_NAME, default: 'default', description: 'a key name, or the exact key_id of one key' }),
);
export const AlgorithmField = Type.Optional(Type.Enum([...KMS_ALGORITHMS], { default: 'ML-DSA-65' }));

export function decodeBase64(text: string, field: string): Uint8Array {
  const bytes = fromBase64(text);
  if (!bytes) throw new ApiError(400, 'invalid_base64', `${field} must be standard base64`);
  return bytes;
}

export function registerKmsSign(app: ServiceApp, deps: VariantBDeps): void {
  app.post(
    '/api/v1/kms/sign',
    {
      preValidation: deps.serviceTokenAuth,
      schema: {
        tags: [TAG_KMS],
        summary: 'Sign data (the raw bytes; data_hash is their SHA3-256 in hex)',
        security: serviceTokenSecurity,
        body: Type.Object({ data: Base64Data, key_id: KeyIdField, algorithm: AlgorithmField }),
        response: {
          200: Type.Object({
            signature: Type.String(),
            key_id: Type.String(),
            algorithm: Type.String(),
            signed_at: Type.String(),
            data_hash: Type.String(),
          }),
          '4xx': DetailError,
        },
      },
    },
    async (req) =>
      kmsSign(
        deps.ctx.db,
        deps.keys,
        {
          data: decodeBase64(req.body.data, 'data'),
          keyId: req.body.key_id ?? 'default',
          algorithm: req.body.algorithm ?? 'ML-DSA-65',
        },
        deps.ctx.now(),
      ),
  );
}
