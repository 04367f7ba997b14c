/**
 * Leases on training jobs: a job is trained by the one process whose lease it holds, is trained
 * again by exactly one other process soon after its holder dies, and is never finished twice.
 *
 * - A process takes the lease when it starts a job (`claimJob`: the row must be `queued`, or
 *   `running` under an expired lease) and renews it with every progress write and on a timer
 *   (`RENEW_MS`), so that a long epoch, or the held-out evaluation, does not lose it.
 * - Every write of the run, its completion included, says `WHERE lease_owner = <this run>`: a
 *   process that lost its lease (it stalled past `LEASE_SECONDS`, another process took the job)
 *   changes nothing, stops its thread, and sends no event.
 * - The cluster's leader (`recoverJobs`, every `RECOVER_MS` in one process) puts a `running` job
 *   whose lease expired back to `queued` and on the queue, and re-sends a `queued` job whose
 *   message a dead process had taken before it could claim the row.
 *
 * All lease times are the database's clock (`now()`), so processes' clocks need not agree.
 * Lease length: 20 s. A process renews every 5 s and at every step, so three renewals in a row
 * must fail (a stalled event loop, a database fail-over) before it loses a job it is still
 * training, and losing one costs a re-run, never a double finish. A dead holder's job is back
 * on the queue within 20 s (the lease) + 5 s (the leader's pace) + the queue's polling (1 s).
 * What a process keeps: the owner token and renewal timer of each run, for as long as it runs.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JobQueue } from '../../../platform/jobs/queue.ts';
import type { Sql } from '../../../platform/storage/database.ts';

export const LEASE_SECONDS = 20;
/** How often a running job's lease is renewed when no progress write has renewed it. */
export const RENEW_MS = 5_000;
/** How often the leader looks for jobs whose holder died. */
export const RECOVER_MS = 5_000;
/** Stale queued rows the leader checks per round: enough for any real backlog of training jobs. */
const ORPHAN_BATCH = 100;

const LEASE = `now() + make_interval(secs => ${LEASE_SECONDS})`;

/** A token naming one run of one job in this process: host, pid, and a random part. */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
}

/** SQL renewing the lease of `$1` held by `$2`; append `, col = $n` assignments before WHERE. */
export const LEASE_RENEWAL = `lease_expires_at = ${LEASE}, updated_at = now()`;

/**
 * Takes job `jobId` for `owner` and counts the attempt, when no live process holds it and it has
 * attempts left. 'claimed': train it; 'exhausted': free, but out of attempts (fail it);
 * null: finished, deleted, or held by a live process (leave it).
 */
export async function claimJob(db: Sql, jobId: string, owner: string, maxAttempts: number): Promise<'claimed' | 'exhausted' | null> {
  const rows = await db.query<{ claimed: boolean }>(
    `UPDATE llm_training_jobs
        SET status = CASE WHEN attempts < $3 THEN 'running' ELSE status END,
            attempts = CASE WHEN attempts < $3 THEN attempts + 1 ELSE attempts END,
            lease_owner = $2, lease_expires_at = ${LEASE}, updated_at = now(),
            started_at = CASE WHEN attempts < $3 THEN now() ELSE started_at END,
            progress = CASE WHEN attempts < $3 THEN 0 ELSE progress END,
            current_epoch = CASE WHEN attempts < $3 THEN 0 ELSE current_epoch END,
            loss = CASE WHEN attempts < $3 THEN NULL ELSE loss END,
            error = CASE WHEN attempts < $3 THEN NULL ELSE error END
      WHERE id = $1
        -- A running row without a lease was started by an earlier version, which did not renew
        -- one: it is taken when its queue message expires, as that version left it.
        AND (status = 'queued' OR (status = 'running' AND (lease_expires_at IS NULL OR lease_expires_at < now())))
      RETURNING status = 'running' AS claimed`,
    [jobId, owner, maxAttempts],
  );
  if (!rows[0]) return null;
  return rows[0].claimed ? 'claimed' : 'exhausted';
}

/** Extends `owner`'s lease on `jobId`; false when it no longer holds it. */
export async function renewLease(db: Sql, jobId: string, owner: string): Promise<boolean> {
  const rows = await db.query(`UPDATE llm_training_jobs SET ${LEASE_RENEWAL} WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id`, [jobId, owner]);
  return rows.length > 0;
}

/** Gives a job this process is stopping back to the queue (its message is retried). */
export async function releaseJob(db: Sql, jobId: string, owner: string): Promise<void> {
  await db.query(
    `UPDATE llm_training_jobs SET status = 'queued', progress = 0, current_epoch = 0, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
      WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
    [jobId, owner],
  );
}

/** Sends job `jobId` to the queue and remembers its message, so that the leader can tell a taken message from a waiting one. */
export async function sendJob(db: Sql, queue: JobQueue, queueName: string, jobId: string): Promise<void> {
  const messageId = await queue.send(queueName, { job_id: jobId });
  await db.query('UPDATE llm_training_jobs SET queue_job_id = $2 WHERE id = $1', [jobId, messageId]);
}

/**
 * The leader's round: a running job whose lease expired goes back to `queued` and on the queue
 * (one UPDATE decides it, so two leaders in a hand-over cannot both re-queue it; a duplicate
 * message would be harmless anyway, as `claimJob` lets one run take it). A job left `queued`
 * for longer than a lease whose message is no longer waiting (taken by a process that died
 * before claiming the row, or given up by the queue) is sent again. Returns the jobs re-queued.
 * `queue` is asked for only when a round finds such a job: a round with nothing to recover does
 * not start the job queue (a process's start does not wait for it).
 */
export async function recoverJobs(db: Sql, queue: () => Promise<JobQueue>, queueName: string): Promise<string[]> {
  const expired = await db.query<{ id: string }>(
    `UPDATE llm_training_jobs SET status = 'queued', progress = 0, current_epoch = 0, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
      WHERE status = 'running' AND lease_expires_at < now() RETURNING id`,
  );
  const requeued = expired.map((r) => r.id);
  for (const id of requeued) await sendJob(db, await queue(), queueName, id);
  const stale = await db.query<{ id: string; queue_job_id: string | null }>(
    `SELECT id, queue_job_id FROM llm_training_jobs
      WHERE status = 'queued' AND updated_at < now() - make_interval(secs => ${LEASE_SECONDS})
      ORDER BY updated_at LIMIT ${ORPHAN_BATCH}`,
  );
  for (const row of stale) {
    const state = row.queue_job_id ? await (await queue()).state(queueName, row.queue_job_id) : null;
    // Waiting for a free process: nothing to do.
    if (state && (state.state === 'created' || state.state === 'retry')) continue;
    // Taken by a process that died before claiming it, given up by the queue, or never sent (the
    // process accepting it died in between): send it again.
    const moved = await db.query(
      `UPDATE llm_training_jobs SET updated_at = now() WHERE id = $1 AND status = 'queued' AND queue_job_id IS NOT DISTINCT FROM $2 RETURNING id`,
      [row.id, row.queue_job_id],
    );
    if (moved.length === 0) continue;
    await sendJob(db, await queue(), queueName, row.id);
    requeued.push(row.id);
  }
  return requeued;
}
