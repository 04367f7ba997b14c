/**
 * POST /api/v1/licenses/validate — checks a key against its end customer by re-deriving the
 * quantum signature (a simulator run, once per license: platform/licenses/verified-signatures.ts)
 * and comparing in constant time; revocation and expiry are decided from the row on every
 * request, a row kept in memory until it changes (platform/licenses/license-rows.ts).
 * A license that is not valid is still a 200 with `valid: false` and the reason in `message`.
 */
import { countLicenseValidation, resultOf } from '../../../platform/observability/families.ts';
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { DetailError } from '../errors.ts';
import { normalizeLicenseKey } from '../keys/format.ts';
import { signedFields, statusOf } from '../keys/store.ts';
import { TAG_B, apiKeySecurity, type VariantBDeps } from './b-context.ts';

export const VALIDATE_MESSAGES = {
  valid: 'License valid',
  notFound: 'License not found or does not match end-customer ID',
  expired: 'License expired',
  mismatch: 'Quantum signature mismatch',
  revoked: 'License revoked',
} as const;

const Body = Type.Object({
  license_key: Type.String({ minLength: 1, maxLength: 128 }),
  end_customer_id: Type.String({ minLength: 1, maxLength: 256 }),
});

const Result = Type.Object({
  valid: Type.Boolean(),
  end_customer_id: Type.String(),
  quantum_verified: Type.Boolean(),
  message: Type.String(),
});

export function registerValidate(app: ServiceApp, deps: VariantBDeps): void {
  app.post(
    '/api/v1/licenses/validate',
    {
      preValidation: deps.apiKeyAuth,
      schema: {
        tags: [TAG_B],
        summary: 'Validate a license key for an end customer',
        security: apiKeySecurity,
        body: Body,
        response: { 200: Result, '4xx': DetailError },
      },
    },
    async (req) => {
      const { end_customer_id } = req.body;
      const answer = (valid: boolean, quantumVerified: boolean, message: string) => {
        countLicenseValidation('licensing', 'b', resultOf(VALIDATE_MESSAGES, message));
        return { valid, end_customer_id, quantum_verified: quantumVerified, message };
      };
      const key = normalizeLicenseKey(req.body.license_key);
      const row = key ? await deps.licenseRows.get(key) : null;
      // Another account's key reads as not found, like an unknown one.
      if (!row || row.account_id !== identityOf(req).accountId || row.end_customer_id !== end_customer_id) return answer(false, false, VALIDATE_MESSAGES.notFound);

      // Re-derived once per license and remembered (the inputs are the row's own).
      if (!(await deps.signatures.verifyRow(row, signedFields))) return answer(false, false, VALIDATE_MESSAGES.mismatch);
      const status = statusOf(row, deps.ctx.now());
      if (status === 'revoked') return answer(false, true, VALIDATE_MESSAGES.revoked);
      if (status === 'expired') return answer(false, true, VALIDATE_MESSAGES.expired);
      return answer(true, true, VALIDATE_MESSAGES.valid);
    },
  );
}
