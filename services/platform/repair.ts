/**
 * Repair, at start and every 30 s: no job and no hold is ever left behind by a process that
 * died (or was stopped) in the middle of one.
 *  - a circuit job whose quantum job ended but was not closed is closed now (settled or
 *    released as its outcome says); one whose quantum job was never queued (a crash between
 *    the commit and the queueing) is queued now; a live one keeps its hold, extended;
 *  - a compute job claimed by a process that is gone (its claim lapsed, or, on the embedded
 *    store, which belongs to one process, its runner is not alive here) is closed FAILED
 *    (`worker_lost`) or CANCELLED and its hold released: the command's result is lost with
 *    it, and a command is not run twice behind its owner's back;
 *  - a hold of the platform whose job is closed or missing is settled to the job's charge or
 *    released (the shared repairHolds).
 */
import { repairHolds } from '../../platform/billing/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { liveOwners } from './compute.ts';
import { onCircuitFinished, quantumJobOf, SERVICE, startCircuit } from './quantum.ts';
import { finishJob } from './settle.ts';
import { extendHoldsOfOpenJobs, openJobs, selectJob } from './store.ts';

const HOLD_GRACE_MS = 24 * 3_600_000;

export interface RepairReport {
  closed: number;
  requeued: number;
  holds: { settled: number; released: number; kept: number };
}

/** `atStart`: no submission of this process is in flight, so a circuit job without its quantum job is queued at once. */
export async function repairPlatform(ctx: ServiceContext, atStart = false): Promise<RepairReport> {
  const now = ctx.now();
  let closed = 0;
  let requeued = 0;
  for (const job of await openJobs(ctx.db, 'quantum')) {
    const q = await quantumJobOf(ctx, job);
    if (!q) {
      // Later runs leave a minute to a submission that is between its commit and its queueing.
      if (!atStart && now.getTime() - job.createdAt.getTime() < 60_000) continue;
      await startCircuit(ctx, job);
      requeued++;
    } else if (['completed', 'failed', 'cancelled'].includes(q.status)) {
      await onCircuitFinished(ctx, q);
      closed++;
    }
  }
  for (const job of await openJobs(ctx.db, 'compute')) {
    if (job.status === 'QUEUED' || !job.owner || liveOwners.has(job.owner)) continue;
    const lapsed = job.leaseUntil === null || job.leaseUntil.getTime() < now.getTime();
    if (ctx.db.kind !== 'pglite' && !lapsed) continue;
    const done = await finishJob(
      ctx,
      job,
      {
        status: job.status === 'CANCEL_REQUESTED' ? 'CANCELLED' : 'FAILED',
        costMicros: 0,
        usage: null,
        result: null,
        error: { code: 'worker_lost', message: 'The process running this job stopped before it finished; nothing was charged' },
        startedAt: job.startedAt,
        finishedAt: now,
      },
      ['RUNNING', 'CANCEL_REQUESTED'],
    );
    if (done) closed++;
  }
  await extendHoldsOfOpenJobs(ctx.db, new Date(now.getTime() + HOLD_GRACE_MS));
  const holds = await repairHolds(ctx.db, {
    service: SERVICE,
    now,
    resolve: async (hold) => {
      const job = await selectJob(ctx.db, null, hold.reference);
      if (!job) return { release: true };
      if (['SETTLED', 'CANCELLED', 'FAILED'].includes(job.status)) return job.chargedMicros ? { settle: job.chargedMicros } : { release: true };
      return null;
    },
  });
  return { closed, requeued, holds };
}
