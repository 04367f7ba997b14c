/**
 * POST /api/v1/licenses/generate — a new license key for an end customer of the calling
 * account, with its quantum-derived signature. The monthly allowance is taken in the same
 * transaction as the insert, so concurrent requests can never exceed it.
 */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { incrementWithinLimit, readCounter } from '../../../platform/identity/usage.ts';
import {
  QUANTUM_SIGNATURE_SECURITY,
  createQuantumSignature,
  verifyQuantumSignature,
  type QuantumSignature,
  type QuantumVerification,
} from '../../../engines/crypto/quantum-signature.ts';
import { DetailError } from '../errors.ts';
import { formatValidUntil, newLicenseKey } from '../keys/format.ts';
import { monthlyCounter, monthlyLimitReached } from '../keys/limits.ts';
import { insertLicense, signedFields } from '../keys/store.ts';
import { licensingPlan } from '../plans.ts';
import { TAG_B, apiKeySecurity, type VariantBDeps } from './b-context.ts';

const DAY_MS = 86_400_000;

const Body = Type.Object({
  end_customer_id: Type.String({ minLength: 1, maxLength: 256 }),
  features: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100, default: [] })),
  valid_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, default: 365 })),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { maxProperties: 64 }), Type.Null()])),
});

const Generated = Type.Object({
  license_key: Type.String(),
  quantum_signature: Type.String(),
  end_customer_id: Type.String(),
  features: Type.Array(Type.String()),
  valid_until: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS, UTC, no timezone suffix' }),
  quantum_verified: Type.Boolean(),
  qcos_fidelity: Type.Number({ description: 'fidelity of the noisy run against the ideal state, measured on the simulator' }),
  security_level: Type.String(),
  generated_at: Type.String(),
});

export function registerGenerate(app: ServiceApp, deps: VariantBDeps): void {
  app.post(
    '/api/v1/licenses/generate',
    {
      preValidation: deps.apiKeyAuth,
      schema: {
        tags: [TAG_B],
        summary: 'Generate a license key (429 when the monthly limit is reached)',
        security: apiKeySecurity,
        body: Body,
        response: { 201: Generated, '4xx': DetailError },
      },
    },
    async (req, reply) => {
      const identity = identityOf(req);
      const plan = licensingPlan(identity.plan);
      const now = deps.ctx.now();
      const counter = monthlyCounter(identity.accountId, now);
      // A cheap early answer; the binding check is the atomic increment below.
      if ((await readCounter(deps.ctx.db, counter)) >= plan.licenses_per_month) throw monthlyLimitReached(plan);

      const features = req.body.features ?? [];
      const createdAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
      const validUntil = new Date(createdAt.getTime() + (req.body.valid_days ?? 365) * DAY_MS);
      const licenseKey = newLicenseKey();
      const fields = signedFields({
        license_key: licenseKey,
        end_customer_id: req.body.end_customer_id,
        features,
        valid_until: validUntil,
      });
      let signature: QuantumSignature;
      // A real re-derivation (a second simulator run), not an echo of the signing step.
      let verified: QuantumVerification;
      try {
        signature = await createQuantumSignature(deps.secret, fields);
        verified = await verifyQuantumSignature(deps.secret, fields, signature.signature);
      } catch (err) {
        req.log.error({ err }, 'quantum signature failed');
        throw new ApiError(500, 'generation_failed', 'License generation failed: the quantum signature could not be computed');
      }

      const row = await deps.ctx.db.transaction(async (tx) => {
        if ((await incrementWithinLimit(tx, counter, plan.licenses_per_month)) === null) throw monthlyLimitReached(plan);
        return insertLicense(tx, {
          accountId: identity.accountId,
          licenseKey,
          endCustomerId: req.body.end_customer_id,
          features,
          metadata: (req.body.metadata ?? null) as Record<string, unknown> | null,
          validUntil,
          createdAt,
          quantumSignature: signature.signature,
          fidelity: signature.fidelity,
          entropy: signature.entropy,
        });
      });
      reply.code(201);
      return {
        license_key: row.license_key,
        quantum_signature: row.quantum_signature,
        end_customer_id: row.end_customer_id,
        features: row.features,
        valid_until: formatValidUntil(row.valid_until),
        quantum_verified: verified.valid,
        qcos_fidelity: row.qcos_fidelity,
        security_level: QUANTUM_SIGNATURE_SECURITY,
        generated_at: row.created_at.toISOString(),
      };
    },
  );
}
