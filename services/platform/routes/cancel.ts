/**
 * POST /api/v1/platform/execution/jobs/{id}/cancel — asks the provider to abort and releases
 * the unused reservation. A job that has not started is CANCELLED at once and its whole hold
 * released. A running one answers CANCEL_REQUESTED while it stops (the sandbox's process
 * group is signalled, or the quantum run's worker is stopped); it then becomes CANCELLED,
 * settled for what ran, the rest released. A cancel racing the job's own end leaves exactly
 * one outcome (the closes are conditional): SETTLED if the work finished first. Cancelling a
 * closed job changes nothing and answers it as it is.
 */
import type { ServiceApp } from '../../../platform/http/app.ts';
import { cancelJob } from '../../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../../platform/service.ts';
import { who } from '../auth.ts';
import { PlatformErrorBody } from '../errors.ts';
import { liveView } from '../live.ts';
import { onCircuitFinished, quantumJobOf, SERVICE } from '../quantum.ts';
import { finishJob } from '../settle.ts';
import { requestCancel, selectJob, type PlatformJob } from '../store.ts';
import { jobView, notFoundView, PlatformJobOut, TERMINAL } from '../views.ts';
import { security, TAG, type PlatformDeps } from './context.ts';
import { JobParams } from './jobs.ts';

function cancelNotStarted(ctx: ServiceContext, job: PlatformJob) {
  return finishJob(ctx, job, { status: 'CANCELLED', costMicros: 0, usage: null, result: null, startedAt: null, finishedAt: ctx.now() }, ['QUEUED']);
}

export function registerCancel(app: ServiceApp, deps: PlatformDeps): void {
  const { ctx } = deps;
  app.post(
    '/api/v1/platform/execution/jobs/:id/cancel',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG],
        summary: 'Cancel a job',
        description: 'Not started: CANCELLED, the whole hold released. Running: CANCEL_REQUESTED until it stops, then CANCELLED and settled for what ran.',
        security,
        params: JobParams,
        response: { 200: PlatformJobOut, '4xx': PlatformErrorBody, '5xx': PlatformErrorBody },
      },
    },
    async (req) => {
      const { accountId } = who(req);
      const id = req.params.id;
      const job = await selectJob(ctx.db, accountId, id);
      if (!job) return notFoundView(id);
      if (TERMINAL.includes(job.status)) return jobView(job);
      if (job.type !== 'QUANTUM_CIRCUIT') {
        if (job.status === 'QUEUED') {
          const closed = await cancelNotStarted(ctx, job);
          if (closed) return jobView(closed);
        }
        // Running (or claimed a moment ago): its owner stops it, here at once, elsewhere at its next heartbeat.
        const requested = await requestCancel(ctx.db, id, ctx.now());
        deps.compute.cancelLocal(id);
        const now = requested ?? (await selectJob(ctx.db, accountId, id))!;
        return jobView(now);
      }
      const q = await quantumJobOf(ctx, job);
      if (!q) {
        const closed = await cancelNotStarted(ctx, job);
        return jobView(closed ?? (await selectJob(ctx.db, accountId, id))!);
      }
      if (q.status === 'queued' || q.status === 'validating' || q.status === 'optimizing') {
        // Not at the provider yet: the cancel is immediate and its close (the finished handler) releases the hold.
        await cancelJob(ctx, { service: SERVICE, accountId }, id);
        return liveView(ctx, (await selectJob(ctx.db, accountId, id))!);
      }
      if (['completed', 'failed', 'cancelled'].includes(q.status)) {
        await onCircuitFinished(ctx, q);
        return jobView((await selectJob(ctx.db, accountId, id))!);
      }
      const requested = await requestCancel(ctx.db, id, ctx.now());
      // The provider confirms the abort in the background; the job reads CANCEL_REQUESTED until then.
      const aborting = cancelJob(ctx, { service: SERVICE, accountId }, id)
        .catch((err) => req.log.warn({ err }, 'platform cancel'))
        .finally(() => deps.background.delete(aborting));
      deps.background.add(aborting);
      return jobView(requested ?? (await selectJob(ctx.db, accountId, id))!);
    },
  );
}
