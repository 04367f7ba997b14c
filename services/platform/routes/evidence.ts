/**
 * GET /api/v1/platform/execution/jobs/{id}/evidence — the signed evidence of a settled job:
 * `{bundle, hash, signature, algo, key_version, checks}` (ML-DSA-65 over the RFC 8785 JSON of
 * the document without its signature fields), only once the job is SETTLED (409
 * `evidence_not_ready` before); unknown or foreign ids answer 200 `not_found` like the job.
 * GET /api/v1/platform/evidence/keys — the public keys, without authentication.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { loadBundle } from '../../../platform/evidence/index.ts';
import { who } from '../auth.ts';
import { platformError, PlatformErrorBody } from '../errors.ts';
import { platformKeys } from '../evidence.ts';
import { selectJob } from '../store.ts';
import { notFoundView } from '../views.ts';
import { security, TAG, type PlatformDeps } from './context.ts';
import { JobParams } from './jobs.ts';

const EvidenceOut = Type.Object(
  {
    bundle: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    hash: Type.Optional(Type.String()),
    signature: Type.Optional(Type.String({ description: 'Standard base64 of the ML-DSA signature' })),
    algo: Type.Optional(Type.String()),
    key_version: Type.Optional(Type.String({ description: 'The key id, as published at /api/v1/platform/evidence/keys' })),
    checks: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    id: Type.Optional(Type.String()),
    job_id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const KeysOut = Type.Object({
  keys: Type.Array(
    Type.Object({ key_id: Type.String(), algorithm: Type.String(), public_key: Type.String(), created_at: Type.String(), status: Type.String() }),
  ),
});

export function registerEvidence(app: ServiceApp, deps: PlatformDeps): void {
  const { ctx } = deps;
  app.get(
    '/api/v1/platform/execution/jobs/:id/evidence',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG],
        summary: 'Evidence of a settled job',
        security,
        params: JobParams,
        response: { 200: EvidenceOut, '4xx': PlatformErrorBody, '5xx': PlatformErrorBody },
      },
    },
    async (req) => {
      const { accountId } = who(req);
      const job = await selectJob(ctx.db, accountId, req.params.id);
      if (!job) return notFoundView(req.params.id);
      if (job.status !== 'SETTLED' || !job.evidenceBundleId) {
        throw platformError('evidence_not_ready', `Evidence exists only once a job is SETTLED; this one is ${job.status}`, { job_id: job.id, status: job.status });
      }
      const stored = await loadBundle(ctx.db, { service: 'platform', bundleId: job.evidenceBundleId, accountId });
      if (!stored) throw platformError('internal_error', 'the evidence of this job is missing');
      return stored.bundle;
    },
  );
  app.get(
    '/api/v1/platform/evidence/keys',
    {
      preValidation: deps.limit,
      schema: { tags: ['Evidence'], summary: 'Public keys of platform evidence (no authentication)', response: { 200: KeysOut, '4xx': PlatformErrorBody } },
    },
    async () => platformKeys(ctx.db).publicKeys(),
  );
}
