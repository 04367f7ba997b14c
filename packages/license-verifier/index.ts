/**
 * Offline verification of Lattice licenses: no server needed once the public keys
 * (`GET /api/v1/v2/keys`) and, optionally, a revocation set (`GET /api/v1/v2/revocation`)
 * have been downloaded.
 *
 * @example
 *   const verifier = new OfflineVerifier({ keys: keysJson.keys, epochStore: new FileEpochStore('epoch.txt') });
 *   verifier.applyRevocationSet(setJson);          // verified, anti-rollback checked
 *   const result = await verifier.validate(compactToken, { cpu_id: '...' });
 *   if (!result.is_valid) console.log(result.error); // EXPIRED, REVOKED, BINDING_MISMATCH...
 */
import type { Fingerprint } from './binding.ts';
import { MemoryEpochStore, type EpochStore } from './epoch-store.ts';
import { evaluate, invalid, type ValidationResult } from './evaluate.ts';
import { ArtifactParseError, parseCompact, parseJsonArtifact, type Artifact } from './format.ts';
import { revocationSetSigningInput, type RevocationEntry, type RevocationSet } from './revocation-set.ts';
import { portableVerify, verifyArtifactSignatures, type PublishedKey, type VerifyFn } from './signatures.ts';

export * from './binding.ts';
export * from './epoch-store.ts';
export * from './evaluate.ts';
export * from './format.ts';
export * from './revocation-set.ts';
export * from './signatures.ts';

export class RevocationSetError extends Error {
  constructor(
    readonly code: 'EPOCH_ROLLBACK' | 'SIGNATURE_INVALID' | 'STALE' | 'GAP',
    message: string,
  ) {
    super(message);
  }
}

export interface OfflineVerifierOptions {
  keys: PublishedKey[];
  epochStore?: EpochStore;
  now?: () => Date;
  verify?: VerifyFn;
}

/** Parses either artifact form: a compact token, or the JSON artifact text. */
export function parseArtifact(text: string): Artifact {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return parseJsonArtifact(trimmed);
  if (!trimmed) throw new ArtifactParseError('artifact is empty');
  return parseCompact(trimmed);
}

export class OfflineVerifier {
  private readonly keys = new Map<string, { algorithm: string; publicKey: Uint8Array }>();
  private readonly epochStore: EpochStore;
  private readonly now: () => Date;
  private readonly verifyFn: VerifyFn;
  private readonly revoked = new Map<string, RevocationEntry>();

  constructor(options: OfflineVerifierOptions) {
    for (const k of options.keys) {
      this.keys.set(k.key_id, { algorithm: k.algorithm, publicKey: new Uint8Array(Buffer.from(k.public_key, 'base64')) });
    }
    this.epochStore = options.epochStore ?? new MemoryEpochStore();
    this.now = options.now ?? (() => new Date());
    this.verifyFn = options.verify ?? portableVerify;
  }

  get epoch(): number {
    return this.epochStore.read();
  }

  /**
   * Rejects an epoch lower than the highest seen (EPOCH_ROLLBACK), otherwise stores it. Use it
   * for the `revocation_epoch` of a server's validation answer too.
   */
  observeEpoch(epoch: number): void {
    const stored = this.epochStore.read();
    if (epoch < stored) {
      throw new RevocationSetError('EPOCH_ROLLBACK', `Revocation epoch ${epoch} is older than the stored minimum ${stored}`);
    }
    if (epoch > stored) this.epochStore.write(epoch);
  }

  /** Verifies and applies a full or incremental (`since_epoch`) revocation set. */
  async applyRevocationSet(set: RevocationSet): Promise<void> {
    const key = this.keys.get(set.key_id);
    const signature = new Uint8Array(Buffer.from(set.signature ?? '', 'base64'));
    const valid =
      key !== undefined &&
      key.algorithm === 'ML-DSA-65' &&
      (await this.verifyFn('ML-DSA-65', key.publicKey, revocationSetSigningInput(set), signature));
    if (!valid) throw new RevocationSetError('SIGNATURE_INVALID', 'Revocation set signature verification failed');
    const stored = this.epochStore.read();
    if (set.epoch < stored) {
      throw new RevocationSetError('EPOCH_ROLLBACK', `Revocation epoch ${set.epoch} is older than the stored minimum ${stored}`);
    }
    if (this.now().getTime() > Date.parse(set.valid_until)) {
      throw new RevocationSetError('STALE', `Revocation set expired at ${set.valid_until}`);
    }
    if (set.since_epoch !== null) {
      if (set.since_epoch > stored) {
        throw new RevocationSetError('GAP', `Incremental set starts at epoch ${set.since_epoch} but this client holds ${stored}`);
      }
      for (const id of set.restored_ids) this.revoked.delete(id);
    } else {
      this.revoked.clear();
    }
    for (const entry of set.entries) this.revoked.set(entry.license_id, entry);
    this.observeEpoch(set.epoch);
  }

  /** Validates an artifact (compact token or JSON text) with the same rules as the server. */
  async validate(artifactText: string, fingerprint?: Fingerprint | null): Promise<ValidationResult> {
    let artifact: Artifact;
    try {
      artifact = parseArtifact(artifactText);
    } catch (err) {
      if (!(err instanceof ArtifactParseError)) throw err;
      return invalid(
        { license_id: '', expires_at: '', revocation_epoch: this.epoch },
        'signature_invalid',
        'SIGNATURE_INVALID',
        `Failed to parse artifact: ${err.message}`,
      );
    }
    const signatureValid = await verifyArtifactSignatures(artifact, (kid) => this.keys.get(kid), this.verifyFn);
    const now = this.now();
    const entry = this.revoked.get(artifact.payload.license_id);
    const active = entry && (entry.effective_until === null || Date.parse(entry.effective_until) > now.getTime());
    return evaluate({
      payload: artifact.payload,
      signatureValid,
      revoked: active ? { reason: entry.reason, until: entry.effective_until } : null,
      fingerprint,
      now,
      epoch: this.epoch,
    });
  }
}
