/**
 * Server-side validation of artifacts. Parsing and signature checks depend only on the
 * artifact text and the (immutable) key behind each key id, so their outcome is cached by
 * the text's hash; revocation and the epoch are read from the database on every request,
 * so a revocation or a restore takes effect on the very next validation.
 */
import { createHash } from 'node:crypto';
import { verify } from '../../../engines/crypto/index.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import type { Sql } from '../../../platform/storage/database.ts';
import {
  ArtifactParseError,
  evaluate,
  parseArtifact,
  verifyArtifactSignatures,
  type ArtifactPayload,
  type Fingerprint,
  type ValidationResult,
} from '../../../packages/license-verifier/index.ts';
import type { SigningKeys } from '../signing-keys.ts';

interface Checked {
  payload: ArtifactPayload;
  signatureValid: boolean;
}

const CACHE_LIMIT = 20_000;

export class ArtifactValidator {
  private readonly cache = new Map<string, Checked>();

  constructor(
    private readonly db: Sql,
    private readonly keys: SigningKeys,
  ) {}

  /** Parses and checks signatures, or answers from the cache. Throws 400 for unparseable text. */
  private async check(text: string): Promise<Checked> {
    const digest = createHash('sha256').update(text).digest('base64');
    const hit = this.cache.get(digest);
    if (hit) return hit;
    let checked: Checked;
    try {
      const artifact = parseArtifact(text);
      for (const slot of artifact.header.sigs) await this.keys.byKeyId(slot.kid);
      const signatureValid = await verifyArtifactSignatures(
        artifact,
        (kid) => {
          const key = this.keys.cached(kid);
          return key && { algorithm: key.algorithm, publicKey: key.public_key };
        },
        (alg, publicKey, message, signature) =>
          alg === 'ML-DSA-65' || alg === 'ML-DSA-87' || alg === 'RSA-PSS-SHA256'
            ? verify(alg, publicKey, message, signature)
            : false,
      );
      checked = { payload: artifact.payload, signatureValid };
    } catch (err) {
      if (err instanceof ArtifactParseError) throw new ApiError(400, 'unparseable_artifact', `Failed to parse artifact: ${err.message}`);
      throw err;
    }
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(digest, checked);
    return checked;
  }

  async validate(text: string, fingerprint: Fingerprint | null | undefined, now: Date): Promise<ValidationResult> {
    const { payload, signatureValid } = await this.check(text);
    // One round trip for the epoch and this license's revocation state.
    const [state] = await this.db.query<{ epoch: number | string; reason: string | null; effective_until: Date | null; revoked: boolean }>(
      `SELECT e.epoch, r.reason, r.effective_until, r.license_id IS NOT NULL AS revoked
         FROM licensing_epoch e
         LEFT JOIN licensing_revocations r
           ON r.license_id::text = $1 AND (r.effective_until IS NULL OR r.effective_until > $2)
        WHERE e.id = 1`,
      [payload.license_id, now],
    );
    const revoked = state?.revoked
      ? { reason: state.reason!, until: state.effective_until ? new Date(state.effective_until).toISOString() : null }
      : null;
    return evaluate({ payload, signatureValid, revoked, fingerprint, now, epoch: Number(state?.epoch ?? 0) });
  }
}
