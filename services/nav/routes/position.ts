/**
 * POST /position: the current solution, issued with a `position_id` (kept for evidence), its
 * integrity, optionally signed (ML-DSA-65 or -87 over the canonical JSON of
 * `{position_id, position, integrity}`) and sealed into an evidence bundle.
 * GET /position/latest: the latest solution from memory with its true age, for high rates.
 */
import { Type } from 'typebox';
import { gpsToUnixMs } from '../../../engines/gnss/time.ts';
import { identityOf } from '../../../platform/http/auth.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { isEvidenceAlgorithm } from '../../../platform/evidence/index.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { navError, responses } from '../errors.ts';
import { newId } from '../ids.ts';
import { currentTiming } from '../timing.ts';
import { bearerSecurity, type NavDeps } from './context.ts';
import { Integrity, Position } from './schemas.ts';

const PositionRequest = Type.Object({
  authenticate: Type.Optional(Type.Boolean({ default: true, description: 'sign the position with the post-quantum key' })),
  spoofing_check: Type.Optional(Type.Boolean({ default: true, description: 'report the spoofing verdict in the integrity (false: spoofing_detected is null)' })),
  generate_evidence: Type.Optional(Type.Boolean({ default: false, description: 'also seal an evidence bundle now' })),
  pqc_algorithm: Type.Optional(Type.String({ default: 'ML-DSA-65', maxLength: 32, description: 'ML-DSA-65 or ML-DSA-87' })),
  require_multi_constellation: Type.Optional(Type.Boolean({ default: false, description: 'refuse unless the solution uses 2 or more constellations' })),
});

const PositionResponse = Type.Object({
  position_id: Type.String({ description: 'what POST /evidence takes' }),
  position: Position,
  integrity: Integrity,
  evidence_bundle_id: Type.Union([Type.String(), Type.Null()]),
  signature: Type.Union([
    Type.Object({
      algorithm: Type.String(),
      public_key_id: Type.String({ description: 'key of GET /evidence/keys' }),
      value: Type.String({ description: 'standard base64 of the ML-DSA signature over the RFC 8785 JSON of {position_id, position, integrity}' }),
    }),
    Type.Null(),
  ]),
  age_ms: Type.Number({ description: 'wall-clock ms since the epoch arrived from the source' }),
  source: Type.String(),
});

export function registerPosition(app: ServiceApp, deps: NavDeps): void {

  app.post(
    '/position',
    {
      preValidation: deps.auth,
      schema: { tags: ['Position'], summary: 'Current position with integrity, signature and optional evidence', security: bearerSecurity, body: PositionRequest, response: responses(PositionResponse) },
    },
    async (req) => {
      const body = req.body ?? {};
      const algorithm = body.pqc_algorithm ?? 'ML-DSA-65';
      if (!isEvidenceAlgorithm(algorithm)) {
        throw navError('UNSUPPORTED_ALGORITHM', `pqc_algorithm must be ML-DSA-65 or ML-DSA-87, got "${algorithm}"`);
      }
      const s = deps.receiver.latest;
      if (!s?.position) {
        throw navError('NO_FIX', `No position available: ${s?.noFixReason ?? 'the source has delivered no epoch yet'} (source: ${deps.receiver.sourceStatus.message})`, { 'retry-after': '1' });
      }
      const constellations = s.integrity.constellations;
      if (body.require_multi_constellation === true && constellations.length < 2) {
        throw navError(
          'INSUFFICIENT_CONSTELLATIONS',
          `require_multi_constellation: the current solution uses ${constellations.length} constellation(s) (${constellations.join(', ') || 'none'}); 2 or more are required`,
        );
      }
      const integrity = { ...s.integrity, spoofing_detected: body.spoofing_check === false ? null : s.integrity.spoofing_detected };
      const timing = currentTiming(deps.receiver, { includeBounds: true });
      const positionId = newId('pos');
      const { accountId } = identityOf(req);
      const createdAt = deps.ctx.now();
      await deps.ctx.db.query(
        'INSERT INTO nav_positions (position_id, account_id, position, integrity, timing, source, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [positionId, accountId, JSON.stringify(s.position), JSON.stringify(integrity), JSON.stringify(timing), deps.receiver.source.description, createdAt],
      );
      const signature = body.authenticate === false ? null : await deps.evidence.signPosition({ position_id: positionId, position: s.position, integrity }, algorithm);
      let bundleId: string | null = null;
      if (body.generate_evidence === true) {
        const bundle = await deps.evidence.issue(
          { position_id: positionId, account_id: accountId, position: { ...s.position }, integrity: { ...integrity }, timing: { ...timing }, source: deps.receiver.source.description, created_at: createdAt },
          { includeTiming: true, includeIntegrity: true, algorithm, receiverNowMs: gpsToUnixMs(deps.receiver.nowGps()) },
        );
        bundleId = bundle.bundle_id as string;
      }
      return ok({ position_id: positionId, position: s.position, integrity, evidence_bundle_id: bundleId, signature, age_ms: Date.now() - s.receivedAt, source: deps.receiver.source.description });
    },
  );

  app.get(
    '/position/latest',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Position'],
        summary: 'Latest position from memory (no signature), with its age',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            position: Type.Object({ latitude: Type.Number(), longitude: Type.Number(), altitude: Type.Number(), timestamp: Type.String() }),
            age_ms: Type.Number({ description: 'wall-clock ms since the epoch arrived from the source' }),
          }),
        ),
      },
    },
    async (_req, reply) => {
      const json = deps.receiver.latestPositionJson();
      const s = deps.receiver.latest;
      if (json === null || !s) throw navError('NO_FIX', `No position available: ${s?.noFixReason ?? 'the source has delivered no epoch yet'}`, { 'retry-after': '1' });
      // Prepared when the epoch was solved: only the age is added here.
      return reply.type("application/json; charset=utf-8").send(`{"success":true,"data":{"position":${json},"age_ms":${Date.now() - s.receivedAt}}}` as never);
    },
  );
}
