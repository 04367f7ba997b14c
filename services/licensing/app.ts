/**
 * The licensing service's application: routes, signing keys and the verification pool.
 * Loaded by `build()` in service.ts only when the service starts, so that listing the
 * services (CLI start-up, migrations) loads none of this.
 */
import { VerifyPool } from '../../engines/crypto/verify-pool.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { requireKey } from '../../platform/http/auth.ts';
import { ApiError } from '../../platform/http/errors.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { ArtifactValidator } from './artifacts/validator.ts';
import type { LicensingDeps } from './deps.ts';
import { DetailError, formatLicensingError } from './errors.ts';
import { registerArtifactKeys } from './routes/a-keys.ts';
import { registerIssue } from './routes/a-issue.ts';
import { registerRestore } from './routes/a-restore.ts';
import { registerRevocationSet } from './routes/a-revocation.ts';
import { registerRevoke } from './routes/a-revoke.ts';
import { registerValidate } from './routes/a-validate.ts';
import { registerVariantB } from './routes/b-routes.ts';
import { ValidationResult } from './routes/schemas.ts';
import { SigningKeys } from './signing-keys.ts';

export const LICENSING_VERSION = '1.0.0';

export async function build(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp> {
  return mountService<LicensingDeps>(options.prefix, {
    app: {
      bodyLimit: 256 * 1024,
      formatError: formatLicensingError,
      docs: {
        title: 'Lattice Licensing',
        version: LICENSING_VERSION,
        description:
          'Variant A: post-quantum signed license artifacts, device binding, grace periods and epoch-based revocation. ' +
          'Variant B: license keys with quantum-derived signatures, plans, revocation list and KMS.',
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Variant A: a licensing API key (lic_...)' },
          apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Variant B: a licensing API key (lic_...)' },
          serviceToken: { type: 'http', scheme: 'bearer', description: 'KMS: a service token (lsvc_...)' },
        },
      },
    },
    schemas: [DetailError, ValidationResult],
    async start() {
      const keys = new SigningKeys(ctx.db);
      // Signing keys exist from the first start on, so /keys is never empty.
      await keys.active('artifact', 'ML-DSA-65');

      // The worker threads start with the first signature to check, not with the service: a start
      // that spawned them spent more CPU on their boot than on the rest of the service's build.
      let verifyPool: VerifyPool | null = null;
      const artifactValidator = new ArtifactValidator(ctx.db, keys, {
        verify: (...args) => (verifyPool ??= new VerifyPool()).verify(...args),
      });
      await artifactValidator.start();
      const stop = async (): Promise<void> => {
        await artifactValidator.stop();
        await verifyPool?.close();
      };

      const invalidKey = () => new ApiError(401, 'invalid_api_key', 'Invalid or inactive API key');
      const xApiKey = requireKey({ db: ctx.db, service: 'licensing', header: 'x-api-key', unauthorized: invalidKey });
      const deps: LicensingDeps = {
        ctx,
        keys,
        artifactValidator,
        bearerAuth: requireKey({ db: ctx.db, service: 'licensing', header: 'bearer', unauthorized: invalidKey }),
        // Variant A and the KMS take Authorization: Bearer, variant B does not: a client that sends
        // its key there is told where it goes instead of getting a bare 401.
        apiKeyAuth: async (req) => {
          if (req.headers['x-api-key'] === undefined && req.headers.authorization !== undefined) {
            throw new ApiError(401, 'invalid_api_key', 'Invalid or inactive API key: variant B takes the key in the X-API-Key header (X-API-Key: lic_...), not in Authorization: Bearer');
          }
          await xApiKey(req);
        },
        serviceTokenAuth: requireKey({
          db: ctx.db,
          service: 'licensing',
          header: 'bearer',
          kind: 'service_token',
          unauthorized: () => new ApiError(401, 'invalid_service_token', 'Invalid or inactive service token'),
        }),
      };
      return { deps, stop };
    },
    routes: [
      registerIssue,
      registerValidate,
      registerRevoke,
      registerRestore,
      registerRevocationSet,
      registerArtifactKeys,
      (app, deps) => registerVariantB(app, deps, options.prefix),
    ],
  });
}
