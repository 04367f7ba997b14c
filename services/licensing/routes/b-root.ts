/** GET / — what this service is and how to start using it (no authentication). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { TAG_B } from './b-context.ts';

export const LICENSING_API_VERSION = '1.0.0';

export function registerRoot(app: ServiceApp, prefix: string): void {
  app.get(
    '/',
    {
      schema: {
        tags: [TAG_B],
        summary: 'Service information',
        response: {
          200: Type.Object({
            service: Type.String(),
            tagline: Type.String(),
            version: Type.String(),
            docs: Type.String(),
            powered_by: Type.String(),
            get_started: Type.String(),
          }),
        },
      },
    },
    async () => ({
      service: 'Lattice Licensing',
      tagline: 'License keys with quantum-derived signatures, revocation lists and post-quantum KMS signing',
      version: LICENSING_API_VERSION,
      docs: `${prefix}/docs`,
      powered_by: 'Lattice density-matrix quantum simulator (noisy backend model) and ML-DSA (FIPS 204)',
      get_started:
        'Create an API key with `npx lattice keys create --service licensing --json`, then ' +
        `POST ${prefix}/api/v1/licenses/generate with the header X-API-Key and a body {"end_customer_id": "..."}.`,
    }),
  );
}
