/**
 * Cancelling a supplier job (interfaces 2 and 4) from the quantum jobs page. Only the suppliers
 * service holds the connection to a supplier, so the page records the request on the job's row
 * of `supplier_jobs` (the database every service shares), and the suppliers service's leader
 * loop carries it out: the supplier's cancel, or an emulated supplier's job-system cancel, then
 * the row's one conditional finish (services/suppliers/cancel-requests.ts). The suppliers' rule
 * holds: only a job still queued can be cancelled; one that started meanwhile keeps running and
 * the refusal comes back in `cancel_refused`.
 */
import type { Sql } from '../../../platform/storage/database.ts';

/** Where a supplier job's cancel stands, as the page shows it. */
export interface SupplierCancel {
  /** The suppliers' row (`sj_...`). */
  rowId: string;
  /** Whether the page may still ask: queued, no request open. */
  cancellable: boolean;
  requestedAt: Date | null;
  refused: string | null;
  /** The supplier's price of the job: charged once it ended, estimated before. */
  costMicros: number;
  charged: boolean;
}

/**
 * The cancel state of the account's supplier job `id`: an emulated one by its job-system id (it
 * is cancellable while that job is queued), a remote one by its row id. Null when `id` is no
 * supplier job of the account.
 */
export async function supplierCancel(db: Sql, accountId: string, id: string): Promise<SupplierCancel | null> {
  const [row] = await db.query<{ id: string; status: string; queued: boolean; cancel_requested_at: Date | null; cancel_refused: string | null; estimated_micros: string; charged_micros: string | null }>(
    `SELECT s.id, s.status, s.cancel_requested_at, s.cancel_refused, s.estimated_micros, s.charged_micros,
            (s.status = 'queued' AND (s.quantum_job_id IS NULL OR q.status = 'queued')) AS queued
       FROM supplier_jobs s LEFT JOIN quantum_jobs q ON q.id = s.quantum_job_id
      WHERE s.account_id = $1 AND (s.quantum_job_id = $2 OR (s.id = $2 AND s.quantum_job_id IS NULL))`,
    [accountId, id],
  );
  if (!row) return null;
  const requestedAt = row.cancel_requested_at ? new Date(row.cancel_requested_at) : null;
  return {
    rowId: row.id, cancellable: Boolean(row.queued) && !requestedAt, requestedAt, refused: row.cancel_refused,
    costMicros: Number(row.charged_micros ?? row.estimated_micros), charged: row.charged_micros !== null,
  };
}

/**
 * Records the request: one conditional UPDATE that takes only a job still queued (an emulated
 * one: queued in the job system too) with no request open. `requested` for the caller that set
 * it; `already_requested` when one is open; `not_queued` when the job has started or ended.
 */
export async function requestSupplierCancel(db: Sql, accountId: string, rowId: string, now: Date): Promise<'requested' | 'already_requested' | 'not_queued'> {
  const set = await db.query<{ id: string }>(
    `UPDATE supplier_jobs s SET cancel_requested_at = $3, cancel_refused = NULL, updated_at = $3
      WHERE s.id = $1 AND s.account_id = $2 AND s.status = 'queued' AND s.cancel_requested_at IS NULL
        AND (s.quantum_job_id IS NULL OR EXISTS (SELECT 1 FROM quantum_jobs q WHERE q.id = s.quantum_job_id AND q.status = 'queued'))
      RETURNING s.id`,
    [rowId, accountId, now],
  );
  if (set.length) return 'requested';
  const [open] = await db.query<{ open: boolean }>(
    "SELECT (cancel_requested_at IS NOT NULL AND status IN ('queued', 'running')) AS open FROM supplier_jobs WHERE id = $1 AND account_id = $2",
    [rowId, accountId],
  );
  return open?.open ? 'already_requested' : 'not_queued';
}

/**
 * What the job's events compare besides its status (`active`: the job has not ended): a request
 * opened or refused changes the page; once the job has ended, its status says it all.
 */
export function cancelMark(c: SupplierCancel | null, active: boolean): string {
  if (!c || !active) return '';
  if (c.requestedAt) return ':cancel-requested';
  return c.refused ? ':cancel-refused' : '';
}
