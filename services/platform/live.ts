/**
 * A job as it is now: a circuit job's row says QUEUED until it closes, so a read asks the
 * quantum job what it is doing (RUNNING once its run started at the provider) and closes the platform job
 * itself when the quantum job ended but its close was lost (the process that ran it died
 * between the two): a read never shows a finished job as open.
 */
import type { ServiceContext } from '../../platform/service.ts';
import { onCircuitFinished, quantumJobOf } from './quantum.ts';
import { closedJobs } from './settle.ts';
import { selectJob, type PlatformJob } from './store.ts';
import { jobView, TERMINAL } from './views.ts';

export async function liveView(ctx: ServiceContext, job: PlatformJob) {
  if (TERMINAL.includes(job.status) || job.type !== 'QUANTUM_CIRCUIT') return jobView(job);
  const q = await quantumJobOf(ctx, job);
  if (q && ['completed', 'failed', 'cancelled'].includes(q.status)) {
    await onCircuitFinished(ctx, q);
    const now = await selectJob(ctx.db, job.accountId, job.id);
    return jobView(now ?? job);
  }
  // At the provider once the run itself started; validating and optimizing are still ours.
  if (q && job.status === 'QUEUED' && q.status === 'running') return jobView(job, { status: 'RUNNING', startedAt: q.startedAt });
  return jobView(job);
}

/** Waits up to `ms` for the job to close (local closes wake it at once; others are polled). */
export async function waitClosed(ctx: ServiceContext, job: PlatformJob, ms: number): Promise<PlatformJob> {
  const deadline = Date.now() + ms;
  let current = job;
  while (!TERMINAL.includes(current.status) && Date.now() < deadline) {
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        closedJobs.off(job.id, wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.min(250, Math.max(1, deadline - Date.now())));
      closedJobs.on(job.id, wake);
    });
    current = (await selectJob(ctx.db, job.accountId, job.id)) ?? current;
    if (!TERMINAL.includes(current.status) && current.type === 'QUANTUM_CIRCUIT') {
      const q = await quantumJobOf(ctx, current);
      if (q && ['completed', 'failed', 'cancelled'].includes(q.status)) {
        await onCircuitFinished(ctx, q);
        current = (await selectJob(ctx.db, job.accountId, job.id)) ?? current;
      }
    }
  }
  return current;
}
