/**
 * Platform evidence (spec: `bundle, hash, signature, algo, key_version, checks`): sealed by
 * the shared evidence module (kind `platform`) when a job settles. `bundle` pins the job: the
 * SHA3-256 of its workload and of its result, its usage and its charge; `checks` records what
 * the platform verified when it sealed; `hash` (the job's `evidence_hash`) is the SHA3-256 of
 * the canonical JSON of `bundle`. Public keys: GET /api/v1/platform/evidence/keys.
 */
import { EvidenceKeys, newBundleId, sealBundle, sha3HashJson, type Bundle } from '../../platform/evidence/index.ts';
import { microsToUsd } from '../../platform/billing/index.ts';
import type { Database } from '../../platform/storage/database.ts';
import type { PlatformJob, UsageMetrics } from './store.ts';

export const EVIDENCE_VERSION = '1.0';

const keysByDb = new WeakMap<Database, EvidenceKeys>();
export function platformKeys(db: Database): EvidenceKeys {
  let keys = keysByDb.get(db);
  if (!keys) {
    keys = new EvidenceKeys(db, 'platform');
    keysByDb.set(db, keys);
  }
  return keys;
}

export interface Sealed {
  bundleId: string;
  document: Bundle;
  hash: string;
}

/** Seals the evidence of a job that is about to settle with these figures. */
export async function sealEvidence(
  db: Database,
  job: PlatformJob,
  s: { resultHash: string; usage: UsageMetrics | null; chargedMicros: number; settledAt: Date; finishedAt: Date; startedAt: Date | null },
): Promise<Sealed> {
  const bundleId = newBundleId('pev');
  const document = await sealBundle(platformKeys(db), 'platform', {
    bundle: {
      evidence_id: bundleId,
      evidence_version: EVIDENCE_VERSION,
      job_id: job.id,
      type: job.type,
      billing_mode: job.billingMode,
      backend: job.backend,
      workload_hash: sha3HashJson(job.workload),
      result_hash: s.resultHash,
      usage_metrics: s.usage,
      price: job.price,
      held_usd: microsToUsd(job.heldMicros),
      charged_usd: microsToUsd(s.chargedMicros),
      // The evidence is created when the job settles; the job's own times are beside it.
      created_at: s.settledAt.toISOString(),
      job_created_at: job.createdAt.toISOString(),
      started_at: s.startedAt?.toISOString() ?? null,
      finished_at: s.finishedAt.toISOString(),
      settled_at: s.settledAt.toISOString(),
    },
    checks: {
      result_hash_recorded: true,
      charge_within_hold: job.billingMode !== 'PREPAID' || s.chargedMicros <= job.heldMicros,
      hold: job.billingMode === 'PREPAID' ? 'settled' : 'none',
      usage_measured: s.usage !== null,
    },
  });
  return { bundleId, document, hash: document.hash as string };
}
