/**
 * Evidence bundles: GET /api/v2/evidence/keys (public keys, unauthenticated), GET
 * /api/v2/evidence/{bundle_id}, POST /api/v2/evidence/verify (a verdict per check, and why a
 * check failed), GET /api/v2/evidence/export/{bundle_id}?format=json|pdf|cbor (the file
 * itself, not the envelope, so that it verifies offline as downloaded).
 */
import { Type } from 'typebox';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { CoreError, coreError, responses } from '../errors.ts';
import { keySecurity, type CoreDeps } from './context.ts';

const Bundle = Type.Object(
  {
    bundle_id: Type.String(),
    version: Type.String({ description: '3.0' }),
    created_at: Type.String(),
    job_id: Type.String(),
    circuit_hash: Type.String({ description: 'sha3-256:<hex> of the QASM text exactly as submitted' }),
    execution_proof: Type.Object({
      backend: Type.String(),
      shots: Type.Integer(),
      timestamp: Type.String({ description: 'when the run finished' }),
      optimization_level: Type.Integer(),
      execution_time_ms: Type.Number(),
      results_hash: Type.String({ description: "sha3-256 of the RFC 8785 canonical JSON of the results' counts" }),
    }),
    signatures: Type.Object({ algorithm: Type.String({ description: 'ML-DSA-65' }), signature: Type.String({ description: 'base64:<signature>' }) }),
    key_id: Type.String({ description: 'the key of GET /api/v2/evidence/keys that signed' }),
  },
  { description: 'Signed over the RFC 8785 canonical JSON of the bundle without signatures and key_id (ML-DSA-65, empty context).' },
);

/**
 * The bundle of a verify request: `{bundle: {...}}` as the spec shows it, or the bundle itself
 * (what the export and the bundle route give, so a downloaded file can be posted as it is). A
 * bundle never has a field named `bundle`, so a body whose only field is `bundle` is the wrapper.
 */
export function bundleOf(body: Record<string, unknown>): unknown {
  const keys = Object.keys(body);
  if (keys.length === 1 && keys[0] === 'bundle') {
    const inner = body.bundle;
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
      throw coreError('INVALID_REQUEST', 'bundle must be the evidence bundle object (or post the bundle itself as the body)');
    }
    return inner;
  }
  if (keys.length === 0) throw coreError('INVALID_REQUEST', 'The body is empty: post {bundle: <bundle>} or the bundle itself');
  return body;
}

const Verdict = Type.Object({ verdict: Type.String({ description: 'valid or invalid' }), reason: Type.Optional(Type.String()) });

const BundleIdParams = Type.Object({ bundle_id: Type.String({ minLength: 1, maxLength: 128 }) });

async function ownBundle(deps: CoreDeps, accountId: string, bundleId: string) {
  const stored = await deps.evidence.get(accountId, bundleId);
  if (!stored) throw coreError('NOT_FOUND', `Evidence bundle '${bundleId}' not found`);
  return stored.bundle;
}

export function registerEvidence(app: ServiceApp, deps: CoreDeps): void {
  app.get(
    '/api/v2/evidence/keys',
    {
      schema: {
        tags: ['Evidence'],
        summary: 'Public keys that sign evidence bundles (no key needed)',
        response: {
          200: Type.Object({
            keys: Type.Array(
              Type.Object({
                key_id: Type.String(),
                algorithm: Type.String(),
                public_key: Type.String({ description: 'standard base64 of the raw public key' }),
                created_at: Type.String(),
                status: Type.String({ description: 'active or retired (retired keys still verify what they signed)' }),
              }),
            ),
          }),
          '5xx': CoreError,
        },
      },
    },
    async () => deps.evidence.publicKeys(),
  );

  app.get(
    '/api/v2/evidence/:bundle_id',
    {
      preValidation: deps.auth,
      schema: { tags: ['Evidence'], summary: 'An evidence bundle of the account', security: keySecurity, params: BundleIdParams, response: responses(Bundle) },
    },
    // The stored bundle is JSON the evidence module issued in this shape; the schema documents it.
    async (req) => ok((await ownBundle(deps, identityOf(req).accountId, req.params.bundle_id)) as never),
  );

  app.post(
    '/api/v2/evidence/verify',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Evidence'],
        summary: 'Verify a bundle: signature, hash and timestamp checks, each with its verdict',
        security: keySecurity,
        description:
          'The body is `{bundle: <the bundle>}` (the spec form) or the bundle itself, exactly as `GET /api/v2/evidence/{bundle_id}` ' +
          'gives it in `data` or the JSON export gives it. A body whose one field is `bundle` is the wrapped form.',
        body: Type.Record(Type.String(), Type.Unknown(), { description: '{bundle: <bundle>} or the bundle itself' }),
        response: responses(
          Type.Object({
            valid: Type.Boolean({ description: 'true only when every check is valid' }),
            checks: Type.Object({ signature: Verdict, hash: Verdict, timestamp: Verdict }),
            key_id: Type.Union([Type.String(), Type.Null()]),
          }),
        ),
      },
    },
    async (req) => {
      const result = await deps.evidence.verify(bundleOf(req.body), (jobId) => deps.jobs.evidenceInputs(jobId));
      const { signature, hash, timestamp } = result.checks;
      return ok({ valid: result.valid, checks: { signature: signature!, hash: hash!, timestamp: timestamp! }, key_id: result.key_id });
    },
  );

  app.get(
    '/api/v2/evidence/export/:bundle_id',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Evidence'],
        summary: 'Download a bundle as JSON (as issued), CBOR (RFC 8949, deterministic) or PDF',
        security: keySecurity,
        params: BundleIdParams,
        querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('pdf'), Type.Literal('cbor')], { default: 'json' })) }),
        response: {
          200: { description: 'the file: application/json, application/cbor or application/pdf' },
          '4xx': CoreError,
          '5xx': CoreError,
        },
      },
    },
    async (req, reply) => {
      const bundle = await ownBundle(deps, identityOf(req).accountId, req.params.bundle_id);
      const file = await deps.evidence.export(bundle, req.query.format ?? 'json');
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .send(file.body);
    },
  );
}
