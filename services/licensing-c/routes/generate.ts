/**
 * POST /api/v1/licenses/generate — a license for an end customer of the calling account,
 * signed with a quantum-derived signature. The monthly allowance is taken in the same
 * transaction as the insert, so concurrent requests can never exceed it.
 */
import { performance } from 'node:perf_hooks';
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { incrementWithinLimit, readCounter } from '../../../platform/identity/usage.ts';
import { createQuantumSignature, type QuantumSignature } from '../../../engines/crypto/quantum-signature.ts';
import { CDetailError } from '../errors.ts';
import { isoSeconds, newLicenseKey } from '../format.ts';
import { monthlyCounter, monthlyLimitReached } from '../limits.ts';
import { cPlan } from '../plans.ts';
import { insertLicense, signedFields } from '../store.ts';
import { TAG, bearerSecurity, type CDeps } from './context.ts';

const DAY_MS = 86_400_000;

export const Metadata = Type.Record(
  Type.String({ maxLength: 128 }),
  Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean(), Type.Null()]),
  { maxProperties: 64, description: 'key-value pairs (string, number, boolean or null values)' },
);

const Body = Type.Object({
  end_customer_id: Type.String({ minLength: 1, maxLength: 256 }),
  features: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100 }),
  expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, default: 365 })),
  metadata: Type.Optional(Type.Union([Metadata, Type.Null()])),
});

export function registerGenerate(app: ServiceApp, deps: CDeps): void {
  app.post(
    '/api/v1/licenses/generate',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG],
        summary: 'Generate a license (429 beyond the monthly limit)',
        security: bearerSecurity,
        body: Body,
        response: {
          200: Type.Object({
            license_key: Type.String(),
            customer_id: Type.String(),
            end_customer_id: Type.String(),
            features: Type.Array(Type.String()),
            issued_at: Type.String(),
            expires_at: Type.String(),
            quantum_signature: Type.String(),
            quantum_fidelity: Type.Number({ description: 'fidelity of the noisy run against the ideal state' }),
            generation_time_ms: Type.Integer(),
            metadata: Type.Union([Metadata, Type.Null()]),
          }),
          '4xx': CDetailError,
        },
      },
    },
    async (req) => {
      const started = performance.now();
      const identity = identityOf(req);
      const plan = cPlan(identity.plan);
      const now = deps.ctx.now();
      const counter = monthlyCounter(identity.accountId, now);
      // A cheap early answer; the binding check is the atomic increment below.
      if ((await readCounter(deps.ctx.db, counter)) >= plan.monthlyLimit) throw monthlyLimitReached(plan, now);

      const issuedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
      const expiresAt = new Date(issuedAt.getTime() + (req.body.expires_in_days ?? 365) * DAY_MS);
      const licenseKey = newLicenseKey();
      const base = {
        license_key: licenseKey,
        account_id: identity.accountId,
        end_customer_id: req.body.end_customer_id,
        features: req.body.features,
        metadata: req.body.metadata ?? null,
        issued_at: issuedAt,
        expires_at: expiresAt,
      };
      let signature: QuantumSignature;
      try {
        signature = await createQuantumSignature(deps.secret, signedFields(base));
      } catch (err) {
        req.log.error({ err }, 'quantum signature failed');
        throw new ApiError(500, 'generation_failed', 'License generation failed: the quantum signature could not be computed');
      }
      const row = {
        ...base,
        quantum_signature: signature.signature,
        quantum_fidelity: signature.fidelity,
        quantum_entropy: signature.entropy,
        generation_time_ms: Math.round(performance.now() - started),
      };
      await deps.ctx.db.transaction(async (tx) => {
        if ((await incrementWithinLimit(tx, counter, plan.monthlyLimit)) === null) throw monthlyLimitReached(plan, now);
        await insertLicense(tx, row);
      });
      return {
        license_key: row.license_key,
        customer_id: row.account_id,
        end_customer_id: row.end_customer_id,
        features: row.features,
        issued_at: isoSeconds(row.issued_at),
        expires_at: isoSeconds(row.expires_at),
        quantum_signature: row.quantum_signature,
        quantum_fidelity: row.quantum_fidelity,
        generation_time_ms: row.generation_time_ms,
        metadata: row.metadata as Record<string, string | number | boolean | null> | null,
      };
    },
  );
}
