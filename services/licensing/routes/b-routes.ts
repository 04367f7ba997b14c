/** Registers every variant B route on the licensing app, after preparing what they share. */
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { LicensingDeps } from '../deps.ts';
import { ensureDefaultKmsKeys } from '../kms/kms.ts';
import { QuantumProbe } from '../../../engines/crypto/quantum-probe.ts';
import { loadSignatureSecret } from '../../../platform/licenses/signature-secret.ts';
import { LicenseRows } from '../../../platform/licenses/license-rows.ts';
import { VerifiedSignatures } from '../../../platform/licenses/verified-signatures.ts';
import { LICENSE_ROWS_TOPIC, licenseByKey } from '../keys/store.ts';
import type { VariantBDeps } from './b-context.ts';
import { registerCustomer } from './b-customer.ts';
import { registerDetail } from './b-detail.ts';
import { registerGenerate } from './b-generate.ts';
import { registerHealth } from './b-health.ts';
import { registerKmsKeys } from './b-kms-keys.ts';
import { registerKmsSign } from './b-kms-sign.ts';
import { registerKmsVerify } from './b-kms-verify.ts';
import { registerList } from './b-list.ts';
import { registerPlans } from './b-plans.ts';
import { registerRevocations } from './b-revocations.ts';
import { registerRevoke } from './b-revoke.ts';
import { registerRoot } from './b-root.ts';
import { registerStats } from './b-stats.ts';
import { registerValidate } from './b-validate.ts';

export async function registerVariantB(app: ServiceApp, deps: LicensingDeps, prefix: string): Promise<void> {
  await ensureDefaultKmsKeys(deps.keys);
  const probe = new QuantumProbe();
  // Probe once at start so the first /health answers from a real run.
  await probe.available();
  const secret = await loadSignatureSecret(deps.ctx.db, 'licensing_b_secrets');
  const licenseRows = new LicenseRows(LICENSE_ROWS_TOPIC, (key) => licenseByKey(deps.ctx.db, key));
  await licenseRows.start(deps.ctx.db);
  app.addHook('onClose', async () => licenseRows.stop());
  const b: VariantBDeps = { ...deps, secret, signatures: new VerifiedSignatures(secret), probe, licenseRows };
  registerRoot(app, prefix);
  registerHealth(app, b);
  registerPlans(app);
  registerGenerate(app, b);
  registerValidate(app, b);
  registerList(app, b);
  registerDetail(app, b);
  registerRevoke(app, b);
  registerRevocations(app, b);
  registerStats(app, b);
  registerCustomer(app, b);
  registerKmsSign(app, b);
  registerKmsVerify(app, b);
  registerKmsKeys(app, b);
}
