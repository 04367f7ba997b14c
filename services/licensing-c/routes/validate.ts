/**
 * POST /api/v1/licenses/validate — checks a license key (no API key needed) by re-deriving its
 * quantum signature on the simulator (once per license: platform/licenses/verified-signatures.ts)
 * and comparing in constant time; expiry is decided from the row on every request, a row kept in
 * memory until it changes (platform/licenses/license-rows.ts). Invalid licenses answer
 * 200 with `valid: false`, `quantum_verified: false` and the reason in `message`.
 */
import { countLicenseValidation, resultOf } from '../../../platform/observability/families.ts';
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { CDetailError } from '../errors.ts';
import { isoSeconds, normalizeLicenseKey } from '../format.ts';
import { signedFields } from '../store.ts';
import { TAG, type CDeps } from './context.ts';
import { Metadata } from './generate.ts';

const DAY_MS = 86_400_000;

export const C_MESSAGES = {
  valid: 'License valid',
  notFound: 'License not found',
  expired: 'License expired',
  mismatch: 'Quantum signature mismatch',
} as const;

export function registerValidate(app: ServiceApp, deps: CDeps): void {
  app.post(
    '/api/v1/licenses/validate',
    {
      schema: {
        tags: [TAG],
        summary: 'Validate a license key',
        body: Type.Object({ license_key: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: {
          200: Type.Object({
            valid: Type.Boolean(),
            quantum_verified: Type.Boolean(),
            message: Type.String(),
            customer_id: Type.Optional(Type.String()),
            end_customer_id: Type.Optional(Type.String()),
            features: Type.Optional(Type.Array(Type.String())),
            issued_at: Type.Optional(Type.String()),
            expires_at: Type.Optional(Type.String()),
            days_remaining: Type.Optional(Type.Integer({ description: 'whole days left, rounded up' })),
            metadata: Type.Optional(Type.Union([Metadata, Type.Null()])),
          }),
          '4xx': CDetailError,
        },
      },
    },
    async (req) => {
      const invalid = (message: string) => {
        countLicenseValidation('licensing-c', 'c', resultOf(C_MESSAGES, message));
        return { valid: false, quantum_verified: false, message };
      };
      const key = normalizeLicenseKey(req.body.license_key);
      const row = key ? await deps.licenseRows.get(key) : null;
      if (!row) return invalid(C_MESSAGES.notFound);
      // Re-derived once per license and remembered (the inputs are the row's own).
      if (!(await deps.signatures.verifyRow(row, signedFields))) return invalid(C_MESSAGES.mismatch);
      const left = row.expires_at.getTime() - deps.ctx.now().getTime();
      if (left <= 0) return invalid(C_MESSAGES.expired);
      countLicenseValidation('licensing-c', 'c', 'valid');
      return {
        valid: true,
        quantum_verified: true,
        message: C_MESSAGES.valid,
        customer_id: row.account_id,
        end_customer_id: row.end_customer_id,
        features: row.features,
        issued_at: isoSeconds(row.issued_at),
        expires_at: isoSeconds(row.expires_at),
        days_remaining: Math.ceil(left / DAY_MS),
        metadata: row.metadata as Record<string, string | number | boolean | null> | null,
      };
    },
  );
}
