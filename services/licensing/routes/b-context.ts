/** What the variant B routes share beyond the licensing deps: the signature secret and the engine probe. */
import type { LicensingDeps } from '../deps.ts';
import type { QuantumProbe } from '../../../engines/crypto/quantum-probe.ts';
import type { LicenseRows } from '../../../platform/licenses/license-rows.ts';
import type { VerifiedSignatures } from '../../../platform/licenses/verified-signatures.ts';
import type { LicenseRow } from '../keys/store.ts';

export interface VariantBDeps extends LicensingDeps {
  /** Key of the quantum signatures' keyed hash (see platform/licenses/signature-secret.ts). */
  secret: Uint8Array;
  /** The secret's verified signatures, remembered (platform/licenses/verified-signatures.ts). */
  signatures: VerifiedSignatures;
  probe: QuantumProbe;
  /** License rows by key, kept for validation and dropped on every change (platform/licenses/license-rows.ts). */
  licenseRows: LicenseRows<LicenseRow>;
}

export const apiKeySecurity = [{ apiKeyAuth: [] }];
export const serviceTokenSecurity = [{ serviceToken: [] }];
export const TAG_B = 'Variant B: license keys';
export const TAG_KMS = 'Variant B: KMS';
