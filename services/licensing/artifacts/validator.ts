/**
 * Server-side validation of artifacts, built to answer from memory:
 *  - parsing and signature checks depend only on the artifact text and the (immutable) key
 *    behind each key id, so their outcome is cached by the text's hash;
 *  - the epoch and each license's revocation row are cached too, and dropped whenever the
 *    revocation state changes: at once in the process that made the change (the revoke and
 *    restore routes call `revocationsChanged`), and through NOTIFY `licensing_revocations`
 *    in every other process listening on the same PostgreSQL database. A generation counter
 *    keeps a lookup that raced with a change from refilling the cache with the old state.
 */
import { createHash } from 'node:crypto';
import type { VerifyPool } from '../../../engines/crypto/verify-pool.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import type { Database } from '../../../platform/storage/database.ts';
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
export const REVOCATIONS_CHANNEL = 'licensing_revocations';

interface RevocationRow {
  reason: string;
  /** End of a suspension in ms, or null for a permanent revocation. */
  until: number | null;
}

export class ArtifactValidator {
  private readonly cache = new Map<string, Checked>();
  private generation = 0;
  private epoch: number | null = null;
  private readonly revocations = new Map<string, RevocationRow | null>();
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Database,
    private readonly keys: SigningKeys,
    private readonly pool: VerifyPool,
  ) {}

  async start(): Promise<void> {
    this.unlisten ??= await this.db.listen(REVOCATIONS_CHANNEL, () => this.revocationsChanged());
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
    this.unlisten = null;
  }

  /** Drops the cached epoch and revocation rows. */
  revocationsChanged(): void {
    this.generation++;
    this.epoch = null;
    this.revocations.clear();
  }

  private async revocationState(licenseId: string): Promise<{ epoch: number; row: RevocationRow | null }> {
    const cachedRow = this.revocations.get(licenseId);
    if (this.epoch !== null && cachedRow !== undefined) return { epoch: this.epoch, row: cachedRow };
    const generation = this.generation;
    const [state] = await this.db.query<{ epoch: number | string; reason: string | null; effective_until: Date | null; revoked: boolean }>(
      `SELECT e.epoch, r.reason, r.effective_until, r.license_id IS NOT NULL AS revoked
         FROM licensing_epoch e
         LEFT JOIN licensing_revocations r ON r.license_id::text = $1
        WHERE e.id = 1`,
      [licenseId],
    );
    const epoch = Number(state?.epoch ?? 0);
    const row = state?.revoked
      ? { reason: state.reason!, until: state.effective_until ? new Date(state.effective_until).getTime() : null }
      : null;
    if (generation === this.generation) {
      if (this.revocations.size >= CACHE_LIMIT * 5) this.revocations.clear();
      this.epoch = epoch;
      this.revocations.set(licenseId, row);
    }
    return { epoch, row };
  }

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
            ? this.pool.verify(alg, publicKey, message, signature)
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
    const { epoch, row } = await this.revocationState(payload.license_id);
    // A suspension ends by itself: compare its end with the request's time on every use.
    const active = row && (row.until === null || row.until > now.getTime());
    const revoked = active ? { reason: row.reason, until: row.until === null ? null : new Date(row.until).toISOString() } : null;
    return evaluate({ payload, signatureValid, revoked, fingerprint, now, epoch });
  }
}
