/**
 * Positioning evidence on the shared evidence module: position signatures (ML-DSA-65 or -87
 * over the RFC 8785 canonical JSON of `{position_id, position, integrity}`) and bundles made
 * from an issued position, with the timing and integrity at that moment, the SHA3-256 of the
 * position and timing objects, and the signature over the whole bundle without it.
 */
import {
  EvidenceKeys,
  exportBundle,
  loadBundle,
  newBundleId,
  saveBundle,
  sealBundle,
  signEvidence,
  verifyBundle,
  type Bundle,
  type CheckResult,
  type EvidenceAlgorithm,
  type ExportFormat,
  type ExportedBundle,
  type PublicKeysDocument,
  type StoredBundle,
} from '../../platform/evidence/index.ts';
import type { ServiceContext } from '../../platform/service.ts';

export const NAV_BUNDLE_VERSION = '1.0';

export interface IssuedPosition {
  position_id: string;
  account_id: string;
  position: Record<string, unknown>;
  integrity: Record<string, unknown>;
  timing: Record<string, unknown>;
  source: string;
  created_at: Date;
}

export class NavEvidence {
  readonly keys: EvidenceKeys;

  constructor(private readonly ctx: ServiceContext) {
    this.keys = new EvidenceKeys(ctx.db, 'nav');
  }

  /** The position's signature: `{algorithm, public_key_id, value}` (value: standard base64). */
  async signPosition(signed: { position_id: string; position: unknown; integrity: unknown }, algorithm: EvidenceAlgorithm) {
    const s = await signEvidence(this.keys, signed, algorithm);
    return { algorithm: s.algorithm, public_key_id: s.key_id, value: s.signature };
  }

  /**
   * `created_at` is the later of the wall clock and the receiver's present time (`receiverNowMs`):
   * with a source running faster than real time (a replay or simulation at rate > 1) the
   * receiver's time is ahead, and a bundle is never dated before the position it attests.
   */
  async issue(p: IssuedPosition, options: { includeTiming: boolean; includeIntegrity: boolean; algorithm?: EvidenceAlgorithm; receiverNowMs?: number }): Promise<Bundle> {
    const bundleId = newBundleId('evb');
    const bundle = await sealBundle(
      this.keys,
      'nav',
      {
        bundle_id: bundleId,
        version: NAV_BUNDLE_VERSION,
        created_at: new Date(Math.max(this.ctx.now().getTime(), p.created_at.getTime(), options.receiverNowMs ?? 0)).toISOString(),
        position_id: p.position_id,
        source: p.source,
        position: p.position,
        timing: options.includeTiming ? p.timing : null,
        integrity: options.includeIntegrity ? p.integrity : null,
      },
      { algorithm: options.algorithm },
    );
    await saveBundle(this.ctx.db, { bundleId, service: 'nav', kind: 'nav', accountId: p.account_id, subjectId: p.position_id, bundle });
    return bundle;
  }

  get(accountId: string, bundleId: string): Promise<StoredBundle | null> {
    return loadBundle(this.ctx.db, { service: 'nav', bundleId, accountId });
  }

  publicKeys(): Promise<PublicKeysDocument> {
    return this.keys.publicKeys();
  }

  export(bundle: Bundle, format: ExportFormat): Promise<ExportedBundle> {
    return exportBundle(bundle, format);
  }

  /** Signature against the published keys, the position and timing hashes, and the timestamps. */
  async verify(bundle: unknown, receiverNowMs = 0): Promise<{ valid: boolean; checks: Record<string, CheckResult>; key_id: string | null }> {
    const now = new Date(Math.max(this.ctx.now().getTime(), receiverNowMs));
    const result = await verifyBundle(bundle, { keys: await this.publicKeys(), kind: 'nav', now });
    return { valid: result.valid, checks: result.checks, key_id: result.key_id };
  }
}
