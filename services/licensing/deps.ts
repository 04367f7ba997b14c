/** What the licensing routes share: the service context, signing keys, validators and auth guards. */
import type { preHandlerAsyncHookHandler } from 'fastify';
import type { ServiceContext } from '../../platform/service.ts';
import type { ArtifactValidator } from './artifacts/validator.ts';
import type { SigningKeys } from './signing-keys.ts';

export interface LicensingDeps {
  ctx: ServiceContext;
  keys: SigningKeys;
  artifactValidator: ArtifactValidator;
  /** Variant A: `Authorization: Bearer <key>`. */
  bearerAuth: preHandlerAsyncHookHandler;
  /** Variant B: `X-API-Key: <key>`. */
  apiKeyAuth: preHandlerAsyncHookHandler;
  /** Variant B KMS: `Authorization: Bearer <service token>`. */
  serviceTokenAuth: preHandlerAsyncHookHandler;
}
