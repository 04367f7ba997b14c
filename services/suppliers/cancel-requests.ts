/**
 * Cancels asked for on a job's row by another service: the quantum jobs page (qcos) shares the
 * database but has no connection to the suppliers, so it sets `cancel_requested_at` on a job
 * still queued, and the leader loop that polls remote jobs answers each request here, through
 * the same cancelSupplierJob as DELETE on the job's route: the supplier's cancel (an emulated
 * supplier's: its job system's), then the one conditional finish of the row (store.ts), so a
 * cancel racing the job's end leaves exactly one of them. A job that started meanwhile keeps
 * running, and the refusal is written to `cancel_refused` for the page to show.
 */
import { ApiError } from '../../platform/http/errors.ts';
import { cancelSupplierJob, type Deps } from './jobs.ts';
import { fromRow } from './store.ts';

/** Requests answered per round; the rest wait for the next one. */
const PER_ROUND = 20;

/** Answers the open cancel requests of active jobs; returns how many jobs were cancelled. */
export async function answerCancelRequests(deps: Deps, log: { warn(line: string): void }): Promise<number> {
  const { db } = deps.ctx;
  const rows = await db.query<Record<string, unknown>>(
    `SELECT * FROM supplier_jobs WHERE cancel_requested_at IS NOT NULL AND status IN ('queued', 'running') ORDER BY cancel_requested_at LIMIT ${PER_ROUND}`,
  );
  let cancelled = 0;
  for (const job of rows.map(fromRow)) {
    try {
      const done = await cancelSupplierJob(deps, job);
      if (done.status === 'cancelled') cancelled++;
    } catch (err) {
      // Any other failure (the supplier unreachable) leaves the request for the next round.
      if (!(err instanceof ApiError) || err.code !== 'JOB_NOT_CANCELLABLE') {
        log.warn(`suppliers: cancel requested for ${job.id} not answered yet: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      await db.query(
        'UPDATE supplier_jobs SET cancel_requested_at = NULL, cancel_refused = $2, updated_at = $3 WHERE id = $1 AND cancel_requested_at IS NOT NULL',
        [job.id, err.message, deps.ctx.now()],
      );
    }
  }
  return cancelled;
}
