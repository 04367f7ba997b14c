/**
 * Closing a job: its status, measured usage and result, its money, and (when it settles) its
 * evidence, all written in one transaction, so that a job is never closed without its hold
 * being settled or released, nor a hold closed without its job. The evidence is sealed just
 * before (signing reads the key store, which on the embedded store cannot be reached while a
 * transaction holds its one connection); a job closed by someone else meanwhile discards it.
 */
import { EventEmitter } from 'node:events';
import { releaseHold, settleHold } from '../../platform/billing/index.ts';
import { saveBundle, sha3HashJson } from '../../platform/evidence/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { sealEvidence } from './evidence.ts';
import { closeJob, OPEN_STATUSES, type PlatformJob, type PlatformStatus, type UsageMetrics } from './store.ts';

/** Local news of closed jobs (GET ?wait= wakes on it; other processes' closes are polled). */
export const closedJobs = new EventEmitter();
closedJobs.setMaxListeners(0);

export interface Outcome {
  status: 'SETTLED' | 'CANCELLED' | 'FAILED';
  /** What the work cost as measured; capped at the hold for prepaid jobs, 0 on the free plan. */
  costMicros: number;
  usage: UsageMetrics | null;
  result: Record<string, unknown> | null;
  error?: { code: string; message: string } | null;
  startedAt: Date | null;
  finishedAt: Date;
}

export async function finishJob(ctx: ServiceContext, job: PlatformJob, o: Outcome, from: readonly PlatformStatus[] = OPEN_STATUSES): Promise<PlatformJob | null> {
  const charged = job.billingMode === 'FREE' ? 0 : job.billingMode === 'PREPAID' ? Math.min(o.costMicros, job.heldMicros) : o.costMicros;
  const settledAt = new Date(Math.max(ctx.now().getTime(), o.finishedAt.getTime()));
  const resultHash = o.result ? sha3HashJson(o.result) : null;
  const sealed = o.status === 'SETTLED' && resultHash
    ? await sealEvidence(ctx.db, job, { resultHash, usage: o.usage, chargedMicros: charged, settledAt, finishedAt: o.finishedAt, startedAt: o.startedAt })
    : null;
  const closed = await ctx.db.transaction(async (tx) => {
    const row = await closeJob(
      tx,
      job.id,
      {
        status: o.status,
        chargedMicros: charged,
        usage: o.usage,
        result: o.result,
        resultHash,
        evidenceHash: sealed?.hash ?? null,
        evidenceBundleId: sealed?.bundleId ?? null,
        error: o.error ?? null,
        startedAt: o.startedAt,
        finishedAt: o.finishedAt,
        settledAt,
      },
      from,
    );
    if (!row) return null;
    if (row.holdId) {
      if (o.status !== 'SETTLED' && charged === 0) await releaseHold(tx, row.holdId);
      else await settleHold(tx, row.holdId, charged);
    }
    if (sealed) {
      await saveBundle(tx, { bundleId: sealed.bundleId, service: 'platform', kind: 'platform', accountId: row.accountId, subjectId: row.id, bundle: sealed.document });
    }
    return row;
  });
  if (closed) closedJobs.emit(closed.id, closed);
  return closed;
}
