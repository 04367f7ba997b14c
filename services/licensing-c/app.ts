/**
 * Licensing variant C's application: routes, the quantum probe and the signature secret.
 * Loaded by `build()` in service.ts only when the service starts.
 */
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { requireKey } from '../../platform/http/auth.ts';
import { ApiError } from '../../platform/http/errors.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { CDetailError, formatDetailError } from './errors.ts';
import { C_KEY_PREFIX, cPlan } from './plans.ts';
import { QuantumProbe } from '../../engines/crypto/quantum-probe.ts';
import type { CDeps } from './routes/context.ts';
import { registerGenerate } from './routes/generate.ts';
import { registerHealth } from './routes/health.ts';
import { registerMe } from './routes/me.ts';
import { registerRegister } from './routes/register.ts';
import { registerSdk } from './routes/sdk.ts';
import { registerStats } from './routes/stats.ts';
import { registerValidate } from './routes/validate.ts';
import { loadSignatureSecret } from '../../platform/licenses/signature-secret.ts';
import { LicenseRows } from '../../platform/licenses/license-rows.ts';
import { VerifiedSignatures } from '../../platform/licenses/verified-signatures.ts';
import { LICENSE_ROWS_TOPIC, findLicense } from './store.ts';

export async function build(ctx: ServiceContext, options: { prefix: string }): Promise<ServiceApp> {
  return mountService<CDeps>(options.prefix, {
    app: {
      bodyLimit: 64 * 1024,
      formatError: formatDetailError,
      docs: {
        title: 'Lattice Licensing (variant C)',
        version: '1.0.0',
        description:
          'Customer registration with bearer API keys, license generation and validation with quantum-derived signatures ' +
          '(measured on the Lattice density-matrix simulator with a noisy backend model), statistics and SDK information.',
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: `An API key (${C_KEY_PREFIX}_...) from registration` },
        },
      },
    },
    schemas: [CDetailError],
    async start() {
      const probe = new QuantumProbe();
      // Probe once at start so the first /health answers from a real run.
      await probe.available();
      const secret = await loadSignatureSecret(ctx.db, 'licensing_c_secrets');
      const licenseRows = new LicenseRows(LICENSE_ROWS_TOPIC, (key) => findLicense(ctx.db, key));
      await licenseRows.start(ctx.db);
      const deps: CDeps = {
        ctx,
        prefix: options.prefix,
        secret,
        signatures: new VerifiedSignatures(secret),
        probe,
        licenseRows,
        bearerAuth: requireKey({
          db: ctx.db,
          service: 'licensing-c',
          header: 'bearer',
          ratePerSecond: (plan) => cPlan(plan).requestsPerSecond,
          unauthorized: () => new ApiError(401, 'invalid_api_key', 'Invalid or missing API key'),
          rateLimited: () => new ApiError(429, 'rate_limited', 'Rate limit exceeded for your plan; retry in a second', {}, { 'retry-after': '1' }),
        }),
      };
      return { deps, stop: () => licenseRows.stop() };
    },
    routes: [registerHealth, registerRegister, registerMe, registerGenerate, registerValidate, registerStats, registerSdk],
  });
}
