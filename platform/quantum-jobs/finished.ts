/**
 * What happens when a job ends (completed, failed or cancelled), registered per store.
 *
 * Each store's runner keeps one `FinishedHandlers` (index.ts): an app registers its handler on
 * the workers it started (`workers.onJobFinished`), and `release()` takes it off again. Apps of
 * one service on one store are interchangeable (they share the store's runner, as processes of
 * a cluster share the store), so exactly one handler answers for a service: the newest one still
 * registered. Closing that app hands the role back to the one before it; an app on another
 * store never sees the job. Kept in memory for as long as the runner lives.
 */
import type { ServiceContext } from '../service.ts';
import type { QuantumJob } from './records.ts';
import type { JobInput } from './task.ts';

export type FinishedHandler = (ctx: ServiceContext, job: QuantumJob<JobInput>) => Promise<void> | void;

export class FinishedHandlers {
  /** Per service, in the order registered; the last one answers. */
  private readonly byService = new Map<string, FinishedHandler[]>();

  /** Registers `handler` for the jobs of `service`; the function returned takes it off. */
  add(service: string, handler: FinishedHandler): () => void {
    const list = this.byService.get(service) ?? [];
    // A function registered twice is two registrations: wrap it so that each removal takes its own.
    const entry: FinishedHandler = (ctx, job) => handler(ctx, job);
    list.push(entry);
    this.byService.set(service, list);
    return () => {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0 && this.byService.get(service) === list) this.byService.delete(service);
    };
  }

  /** The handler that answers for `service` now, if any. */
  current(service: string): FinishedHandler | undefined {
    return this.byService.get(service)?.at(-1);
  }
}

/** Runs what the job's end calls for: the store's handler for its service, if one is registered. A failing handler is a warning. */
export async function runFinishedHandlers(ctx: ServiceContext, store: FinishedHandlers | null, job: QuantumJob<JobInput>): Promise<void> {
  const handler = store?.current(job.service);
  if (!handler) return;
  try {
    await handler(ctx, job);
  } catch (err) {
    process.emitWarning(`quantum job ${job.id}: finished handler failed: ${(err as Error).message}`);
  }
}
