/**
 * What a stopped process left, finished at start: async jobs still `validating` are priced;
 * approved jobs missing from the job system are queued (their hold is still open) or failed
 * (their hold was closed); ended runs whose hold is still open are settled or released; and
 * holds of jobs that will never run are released. A hold is never lost or closed twice: every
 * close is one guarded statement.
 */
import { getHold, repairHolds } from '../../platform/billing/index.ts';
import { getJob, TERMINAL } from '../../platform/quantum-jobs/index.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { SERVICE, type RuntimeLifecycle } from './lifecycle.ts';
import { selectByPhase, selectRuntimeJob, transition } from './records.ts';

export async function resumeRuntime(ctx: ServiceContext, jobs: RuntimeLifecycle): Promise<void> {
  for (const job of await selectByPhase(ctx.db, ['validating'])) await jobs.validate(job);
  for (const job of await selectByPhase(ctx.db, ['submitted'])) {
    const run = await getJob(ctx, { service: SERVICE }, job.id);
    if (run) {
      if (TERMINAL.includes(run.status) && job.finishedAt === null) await jobs.finished(run);
      continue;
    }
    const hold = job.holdId ? await getHold(ctx.db, job.holdId) : null;
    if (job.holdId && hold?.status !== 'open') {
      await transition(ctx.db, job.id, ['submitted'], 'failed', ctx.now(), {
        error: { code: 'INTERNAL_ERROR', message: 'The job was approved but its credit hold was closed before it ran' },
        finished_at: ctx.now(),
      });
    } else await jobs.run(job).catch(() => {}); // a refusal there fails the job and releases its hold
  }
  // Holds whose job is gone, was never submitted, or ended without completing: release them.
  // Those of live jobs stay (a device queue may hold a job past the hold's expiry).
  await repairHolds(ctx.db, {
    service: SERVICE,
    now: ctx.now(),
    resolve: async (hold) => {
      const job = await selectRuntimeJob(ctx.db, hold.reference);
      if (!job || job.holdId !== hold.id || job.phase !== 'submitted') return { release: true };
      const run = await getJob(ctx, { service: SERVICE }, job.id);
      return run && run.status !== 'completed' && TERMINAL.includes(run.status) ? { release: true } : null;
    },
  });
}
