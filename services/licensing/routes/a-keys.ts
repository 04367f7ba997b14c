/** GET /api/v1/v2/keys — public keys of every artifact signing key, for offline verification. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { LicensingDeps } from '../deps.ts';

export const PublicKeys = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        key_id: Type.String(),
        algorithm: Type.String(),
        public_key: Type.String({ description: 'standard base64 of the raw public key (DER SPKI for RSA)' }),
        created_at: Type.String(),
        status: Type.String({ description: 'active, or retired (still valid for what it signed)' }),
      }),
    ),
  },
  { $id: 'PublicKeys' },
);

export function registerArtifactKeys(app: ServiceApp, deps: LicensingDeps): void {
  app.get(
    '/api/v1/v2/keys',
    {
      schema: {
        tags: ['Variant A: artifacts'],
        summary: 'Public keys for artifacts and revocation sets (no authentication)',
        response: { 200: PublicKeys },
      },
    },
    async () => ({ keys: await deps.keys.published('artifact') }),
  );
}
