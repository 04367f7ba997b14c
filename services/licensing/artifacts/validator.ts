/**
 * Server-side validation of artifacts, built to answer from memory:
 *  - parsing and signature checks depend only on the artifact text and the (immutable) key
 *    behind each key id, so their outcome is cached by the text's hash;
 *  - the epoch and the revocation rows are loaded together and cached, and dropped whenever
 *    the revocation state changes: at once in the process that made the change (the revoke and
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

function toRow(r: { reason: string; effective_until: Date | null }): RevocationRow {
  return { reason: r.reason, until: r.effective_until ? new Date(r.effective_until).getTime() : null };
}

export class ArtifactValidator {
  private readonly cache = new Map<string, Checked>();
  private generation = 0;
  private epoch: number | null = null;
  private readonly revocations = new Map<string, RevocationRow>();
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Database,
    private readonly keys: SigningKeys,
    private readonly pool: Pick<VerifyPool, 'verify'>,
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

  /**
   * The epoch and every revocation row, loaded in one query after each change and then
   * answered from memory: revoked licenses are few, so any license, seen before or not,
   * costs no round trip.
   */
  private async revocationState(licenseId: string): Promise<{ epoch: number; row: RevocationRow | null }> {
    if (this.epoch === null) {
      const generation = this.generation;
      const [rows, [epochRow]] = await Promise.all([
        this.db.query<{ license_id: string; reason: string; effective_until: Date | null }>(
          'SELECT license_id::text AS license_id, reason, effective_until FROM licensing_revocations',
        ),
        this.db.query<{ epoch: number | string }>('SELECT epoch FROM licensing_epoch WHERE id = 1'),
      ]);
      if (generation !== this.generation) {
        // A change landed while loading: answer this request from what was read, cache nothing.
        const row = rows.find((r) => r.license_id === licenseId);
        return { epoch: Number(epochRow?.epoch ?? 0), row: row ? toRow(row) : null };
      }
      this.revocations.clear();
      for (const r of rows) this.revocations.set(r.license_id, toRow(r));
      this.epoch = Number(epochRow?.epoch ?? 0);
    }
    return { epoch: this.epoch, row: this.revocations.get(licenseId) ?? null };
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
