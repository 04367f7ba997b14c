/**
 * POST /evidence (a signed bundle from an issued position), GET /evidence/{bundle_id},
 * POST /evidence/verify (a verdict per check), GET /evidence/keys (public keys, no key needed).
 * Bundle: `{bundle_id, version, created_at, position_id, source, position, timing, integrity,
 * position_hash, timing_hash, signature {algorithm, key_id, value}}`, signed with ML-DSA over
 * the RFC 8785 canonical JSON of everything but `signature`.
 */
import { Type } from 'typebox';
import { gpsToUnixMs } from '../../../engines/gnss/time.ts';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { navError, NavError, responses } from '../errors.ts';
import { bearerSecurity, type NavDeps } from './context.ts';
import { Any, BundleIdParams, Verdict } from './schemas.ts';

const N = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const Bundle = Type.Object(
  {
    bundle_id: Type.String(),
    version: Type.String({ description: '1.0' }),
    created_at: Type.String(),
    position_id: Type.String(),
    source: Type.String({ description: 'the live source that produced the position' }),
    position: Any,
    timing: Any,
    integrity: Any,
    position_hash: N(Type.String({ description: 'sha3-256:<hex> of the RFC 8785 JSON of position' })),
    timing_hash: N(Type.String({ description: 'sha3-256:<hex> of the RFC 8785 JSON of timing (null without timing)' })),
    signature: Type.Object({ algorithm: Type.String(), key_id: Type.String({ description: 'key of GET /evidence/keys' }), value: Type.String({ description: 'standard base64' }) }),
  },
  { description: 'Signed with ML-DSA (empty context) over the RFC 8785 canonical JSON of the bundle without signature.' },
);

export function registerEvidence(app: ServiceApp, deps: NavDeps): void {
  app.get(
    '/evidence/keys',
    {
      schema: {
        tags: ['Evidence'],
        summary: 'Public keys that sign positions and evidence (no key needed)',
        response: {
          200: Type.Object({
            keys: Type.Array(
              Type.Object({ key_id: Type.String(), algorithm: Type.String(), public_key: Type.String({ description: 'standard base64 of the raw public key' }), created_at: Type.String(), status: Type.String() }),
            ),
          }),
          '5xx': NavError,
        },
      },
    },
    async () => deps.evidence.publicKeys(),
  );

  app.post(
    '/evidence',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Evidence'],
        summary: 'Seal an evidence bundle for an issued position',
        security: bearerSecurity,
        body: Type.Object({
          position_id: Type.String({ minLength: 1, maxLength: 128 }),
          include_timing: Type.Optional(Type.Boolean({ default: true })),
          include_integrity: Type.Optional(Type.Boolean({ default: true })),
          format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('cbor'), Type.Literal('pdf')], { default: 'json', description: 'json: the envelope; cbor (RFC 8949, deterministic) or pdf: the file itself' })),
        }),
        response: { ...responses(Bundle, 201), 200: { description: 'cbor or pdf: the file' } },
      },
    },
    async (req, reply) => {
      const { accountId } = identityOf(req);
      const [row] = await deps.ctx.db.query<{ position_id: string; account_id: string; position: string; integrity: string; timing: string; source: string; created_at: Date }>(
        'SELECT * FROM nav_positions WHERE position_id = $1 AND account_id = $2',
        [req.body.position_id, accountId],
      );
      if (!row) throw navError('NOT_FOUND', `Position '${req.body.position_id}' not found`);
      const bundle = await deps.evidence.issue(
        {
          position_id: row.position_id,
          account_id: row.account_id,
          position: JSON.parse(row.position),
          integrity: JSON.parse(row.integrity),
          timing: JSON.parse(row.timing),
          source: row.source,
          created_at: new Date(row.created_at),
        },
        { includeTiming: req.body.include_timing !== false, includeIntegrity: req.body.include_integrity !== false, receiverNowMs: gpsToUnixMs(deps.receiver.nowGps()) },
      );
      const format = req.body.format ?? 'json';
      if (format !== 'json') {
        const file = await deps.evidence.export(bundle, format);
        return reply.code(200).type(file.contentType).header('content-disposition', `attachment; filename="${file.filename}"`).send(file.body);
      }
      return reply.code(201).send(ok(bundle as never));
    },
  );

  app.get(
    '/evidence/:bundle_id',
    {
      preValidation: deps.auth,
      schema: { tags: ['Evidence'], summary: 'An evidence bundle of the account', security: bearerSecurity, params: BundleIdParams, response: responses(Bundle) },
    },
    async (req) => {
      const stored = await deps.evidence.get(identityOf(req).accountId, req.params.bundle_id);
      if (!stored) throw navError('NOT_FOUND', `Evidence bundle '${req.params.bundle_id}' not found`);
      return ok(stored.bundle as never);
    },
  );

  app.post(
    '/evidence/verify',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Evidence'],
        summary: 'Verify a bundle: signature, timestamp, position and timing hashes, each with its verdict',
        security: bearerSecurity,
        body: Type.Object({ bundle: Type.Record(Type.String(), Type.Unknown(), { description: 'the bundle as issued' }) }),
        response: responses(
          Type.Object({
            valid: Type.Boolean({ description: 'true only when every check is valid' }),
            checks: Type.Object({ signature: Verdict, timestamp: Verdict, position_hash: Verdict, timing_hash: Verdict }),
            key_id: N(Type.String()),
          }),
        ),
      },
    },
    async (req) => {
      const result = await deps.evidence.verify(req.body.bundle, gpsToUnixMs(deps.receiver.nowGps()));
      const c = result.checks;
      const missing = { verdict: 'invalid', reason: 'not checked: the bundle is not a positioning bundle' };
      return ok({
        valid: result.valid,
        checks: { signature: c.signature ?? missing, timestamp: c.timestamp ?? missing, position_hash: c.position_hash ?? missing, timing_hash: c.timing_hash ?? missing },
        key_id: result.key_id,
      });
    },
  );
}
