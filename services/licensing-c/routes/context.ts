/** What the variant C routes share: the service context, the signature secret, the probe and the auth guard. */
import type { preHandlerAsyncHookHandler } from 'fastify';
import type { ServiceContext } from '../../../platform/service.ts';
import type { QuantumProbe } from '../../../engines/crypto/quantum-probe.ts';
import type { LicenseRows } from '../../../platform/licenses/license-rows.ts';
import type { VerifiedSignatures } from '../../../platform/licenses/verified-signatures.ts';
import type { CLicenseRow } from '../store.ts';

export interface CDeps {
  ctx: ServiceContext;
  secret: Uint8Array;
  /** The secret's verified signatures, remembered (platform/licenses/verified-signatures.ts). */
  signatures: VerifiedSignatures;
  probe: QuantumProbe;
  /** License rows by key, kept for validation and dropped on every change (platform/licenses/license-rows.ts). */
  licenseRows: LicenseRows<CLicenseRow>;
  /** `Authorization: Bearer <key>` with the plan's request rate. */
  bearerAuth: preHandlerAsyncHookHandler;
  prefix: string;
}

export const bearerSecurity = [{ bearerAuth: [] }];
export const TAG = 'Licensing (variant C)';
