/**
 * Server-side validation of artifacts, built to answer from memory:
 *  - parsing and signature checks depend only on the artifact text and the (immutable) key
 *    behind each key id, so their outcome is cached by the text's hash;
 *  - the epoch and the revocation rows are loaded together and cached, and dropped whenever
 *    the revocation state changes: at once in the process that made the change (the revoke and
 *    restore routes call `revocationsChanged`), and through NOTIFY `licensing_revocations`
 *    in every other process listening on the same PostgreSQL database. A generation counter
 *    keeps a lookup that raced with a change from refilling the cache with the old state;
 *  - the answer itself, for the common request (no fingerprint, no revocation row): `evaluate`
 *    is a pure function of its inputs, and between not_before and expires_at its only varying
 *    input, the time, gives the same answer. It is kept with the artifact's cached check and
 *    the epoch it was made under, and used only when the epoch is the same, the license has no
 *    revocation row and the request's time lies in that window; any other request is evaluated.
 */
import { sha256 } from '../../../engines/crypto/encoding.ts';
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
  /** [not_before, expires_at) in ms (NaN when unreadable: never steady), where the answer to a request without a fingerprint cannot change. */
  steadyFrom: number;
  steadyUntil: number;
  /** The answer of the last such request in that window, and the epoch it was made under. */
  steady: { epoch: number; result: ValidationResult } | null;
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
    const digest = sha256(text, 'base64');
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
      const p = artifact.payload;
      const expires = Date.parse(p.expires_at);
      // The grace period's end too, should a grace period ever end before the expiry.
      const steadyUntil = Math.min(expires, expires + p.grace_period_days * 86_400_000);
      checked = { payload: p, signatureValid, steadyFrom: Date.parse(p.not_before), steadyUntil, steady: null };
    } catch (err) {
      if (err instanceof ArtifactParseError) throw new ApiError(400, 'unparseable_artifact', `Failed to parse artifact: ${err.message}`);
      throw err;
    }
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(digest, checked);
    return checked;
  }

  async validate(text: string, fingerprint: Fingerprint | null | undefined, now: Date): Promise<ValidationResult> {
    const checked = await this.check(text);
    const { payload, signatureValid } = checked;
    const { epoch, row } = await this.revocationState(payload.license_id);
    const at = now.getTime();
    const steady = fingerprint == null && row === null && at >= checked.steadyFrom && at < checked.steadyUntil;
    if (steady && checked.steady?.epoch === epoch) return checked.steady.result;
    // A suspension ends by itself: compare its end with the request's time on every use.
    const active = row && (row.until === null || row.until > at);
    const revoked = active ? { reason: row.reason, until: row.until === null ? null : new Date(row.until).toISOString() } : null;
    const result = evaluate({ payload, signatureValid, revoked, fingerprint, now, epoch });
    if (steady) checked.steady = { epoch, result };
    return result;
  }
}
