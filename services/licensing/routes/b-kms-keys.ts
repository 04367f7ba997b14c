/** GET /api/v1/kms/keys — public keys of every KMS key, active and retired (no authentication). */
import type { ServiceApp } from '../../../platform/http/app.ts';
import { PublicKeys } from './a-keys.ts';
import { TAG_KMS, type VariantBDeps } from './b-context.ts';

export function registerKmsKeys(app: ServiceApp, deps: VariantBDeps): void {
  app.get(
    '/api/v1/kms/keys',
    {
      schema: {
        tags: [TAG_KMS],
        summary: 'KMS public keys by key id, for independent verification',
        response: { 200: PublicKeys },
      },
    },
    async () => ({ keys: await deps.keys.published('kms') }),
  );
}
