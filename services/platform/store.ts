/**
 * Platform job rows and every change of their status. Each change is one conditional UPDATE
 * naming the states it may leave, so a cancel racing a finish, or two processes repairing the
 * same job, leave exactly one outcome:
 *
 *   QUEUED -> RUNNING -> SETTLED | CANCELLED | FAILED
 *   QUEUED | RUNNING -> CANCEL_REQUESTED -> CANCELLED (or SETTLED when the work finished first)
 *   QUEUED -> CANCELLED (never started: the whole hold comes back)
 */
import { decodeResult } from '../../platform/quantum-jobs/records.ts';
import type { Sql } from '../../platform/storage/database.ts';
import type { BillingMode } from './plans.ts';
import type { Price } from './pricing.ts';
import type { Workload, WorkloadType } from './workload.ts';

export type PlatformStatus = 'QUEUED' | 'RUNNING' | 'CANCEL_REQUESTED' | 'SETTLED' | 'CANCELLED' | 'FAILED';
export const OPEN_STATUSES: readonly PlatformStatus[] = ['QUEUED', 'RUNNING', 'CANCEL_REQUESTED'];
export const TERMINAL_STATUSES: readonly PlatformStatus[] = ['SETTLED', 'CANCELLED', 'FAILED'];
const OPEN_SQL = `('QUEUED', 'RUNNING', 'CANCEL_REQUESTED')`;
const COMPUTE_SQL = `('CPU_JOB', 'GPU_JOB')`;

export interface UsageMetrics {
  queue_time_seconds: number | null;
  wall_clock_seconds: number | null;
  /** Device time the (emulated) provider reported; null when it reported none (simulators, CPU/GPU jobs). */
  qpu_seconds: number | null;
  simulator_seconds: number | null;
  shots: number | null;
  cpus: number | null;
  memory_gb: number | null;
  gpus: number | null;
  gpu_available: boolean | null;
}

export interface PlatformJob {
  id: string;
  accountId: string;
  keyId: string | null;
  idempotencyKey: string | null;
  requestHash: string;
  type: WorkloadType;
  status: PlatformStatus;
  billingMode: BillingMode;
  plan: string;
  workload: Workload;
  backend: string | null;
  price: Price;
  holdId: string | null;
  heldMicros: number;
  chargedMicros: number | null;
  firstResponse: string;
  owner: string | null;
  leaseUntil: Date | null;
  usageMetrics: UsageMetrics | null;
  result: Record<string, unknown> | null;
  resultHash: string | null;
  evidenceHash: string | null;
  evidenceBundleId: string | null;
  error: { code: string; message: string } | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  settledAt: Date | null;
  cancelRequestedAt: Date | null;
}

type Row = Record<string, unknown>;
const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

export function fromRow(r: Row): PlatformJob {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    keyId: (r.key_id as string | null) ?? null,
    idempotencyKey: (r.idempotency_key as string | null) ?? null,
    requestHash: r.request_hash as string,
    type: r.type as WorkloadType,
    status: r.status as PlatformStatus,
    billingMode: r.billing_mode as BillingMode,
    plan: r.plan as string,
    workload: json<Workload>(r.workload),
    backend: (r.backend as string | null) ?? null,
    price: json<Price>(r.price),
    holdId: (r.hold_id as string | null) ?? null,
    heldMicros: Number(r.held_micros),
    chargedMicros: r.charged_micros === null ? null : Number(r.charged_micros),
    firstResponse: r.first_response as string,
    owner: (r.owner as string | null) ?? null,
    leaseUntil: date(r.lease_until),
    usageMetrics: r.usage_metrics === null ? null : json<UsageMetrics>(r.usage_metrics),
    result: r.result === null ? null : json<Record<string, unknown>>(r.result),
    resultHash: (r.result_hash as string | null) ?? null,
    evidenceHash: (r.evidence_hash as string | null) ?? null,
    evidenceBundleId: (r.evidence_bundle_id as string | null) ?? null,
    error: r.error === null ? null : json<{ code: string; message: string }>(r.error),
    createdAt: date(r.created_at)!,
    startedAt: date(r.started_at),
    finishedAt: date(r.finished_at),
    settledAt: date(r.settled_at),
    cancelRequestedAt: date(r.cancel_requested_at),
  };
}

/**
 * Inserts a new job unless the account already used its Idempotency-Key: then nothing is
 * written and false comes back (the caller rolls its hold back and replays or refuses). Run it
 * inside the transaction that places the hold, so a job row never exists without its hold.
 */
export async function insertJob(tx: Sql, j: PlatformJob): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO platform_jobs (id, account_id, key_id, idempotency_key, request_hash, type, status, billing_mode, plan, workload,
       backend, price, held_micros, first_response, created_at, updated_at, hold_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16)
     ON CONFLICT (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING id`,
    [j.id, j.accountId, j.keyId, j.idempotencyKey, j.requestHash, j.type, j.status, j.billingMode, j.plan, JSON.stringify(j.workload),
      j.backend, JSON.stringify(j.price), j.heldMicros, j.firstResponse, j.createdAt, j.holdId],
  );
  return rows.length > 0;
}

export async function setHold(tx: Sql, id: string, holdId: string): Promise<void> {
  await tx.query('UPDATE platform_jobs SET hold_id = $2 WHERE id = $1', [id, holdId]);
}

/** The account's job (null for an unknown id or another account's: the caller answers `not_found`). */
export async function selectJob(db: Sql, accountId: string | null, id: string): Promise<PlatformJob | null> {
  const rows = accountId === null
    ? await db.query('SELECT * FROM platform_jobs WHERE id = $1', [id])
    : await db.query('SELECT * FROM platform_jobs WHERE id = $1 AND account_id = $2', [id, accountId]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** The job and its quantum run's result (null until the run completed), in one read. */
export async function selectJobWithRunResult<R>(db: Sql, id: string): Promise<{ job: PlatformJob; result: R | null } | null> {
  const [row] = await db.query(
    `SELECT p.*, q.result AS run_result, q.result_gz AS run_result_gz FROM platform_jobs p
       LEFT JOIN quantum_jobs q ON q.id = p.id AND q.service = 'platform' WHERE p.id = $1`,
    [id],
  );
  if (!row) return null;
  return { job: fromRow(row), result: decodeResult<R>({ result: row.run_result, result_gz: (row.run_result_gz as Uint8Array | null) ?? null }) };
}

export async function selectByIdempotencyKey(db: Sql, accountId: string, key: string): Promise<PlatformJob | null> {
  const rows = await db.query('SELECT * FROM platform_jobs WHERE account_id = $1 AND idempotency_key = $2', [accountId, key]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Takes the oldest queued compute job for `owner` (SKIP LOCKED: processes never take the same one). */
export async function claimCompute(db: Sql, owner: string, now: Date, leaseUntil: Date): Promise<PlatformJob | null> {
  const rows = await db.query(
    `UPDATE platform_jobs SET status = 'RUNNING', owner = $1, lease_until = $3, started_at = $2, updated_at = $2
      WHERE id = (SELECT id FROM platform_jobs WHERE type IN ${COMPUTE_SQL} AND status = 'QUEUED'
                   ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        AND status = 'QUEUED'
      RETURNING *`,
    [owner, now, leaseUntil],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Renews a running job's claim; returns its status (CANCEL_REQUESTED tells the owner to stop), or null when it is no longer ours. */
export async function renewLease(db: Sql, id: string, owner: string, leaseUntil: Date): Promise<PlatformStatus | null> {
  const rows = await db.query<{ status: PlatformStatus }>(
    `UPDATE platform_jobs SET lease_until = $3 WHERE id = $1 AND owner = $2 AND status IN ('RUNNING', 'CANCEL_REQUESTED') RETURNING status`,
    [id, owner, leaseUntil],
  );
  return rows[0]?.status ?? null;
}

/** QUEUED or RUNNING -> CANCEL_REQUESTED; null when the job was in neither state. */
export async function requestCancel(db: Sql, id: string, now: Date): Promise<PlatformJob | null> {
  const rows = await db.query(
    `UPDATE platform_jobs SET status = 'CANCEL_REQUESTED', cancel_requested_at = $2, updated_at = $2
      WHERE id = $1 AND status IN ('QUEUED', 'RUNNING') RETURNING *`,
    [id, now],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export interface Closing {
  status: 'SETTLED' | 'CANCELLED' | 'FAILED';
  chargedMicros: number;
  usage: UsageMetrics | null;
  result: Record<string, unknown> | null;
  resultHash: string | null;
  evidenceHash: string | null;
  evidenceBundleId: string | null;
  error: { code: string; message: string } | null;
  startedAt: Date | null;
  finishedAt: Date;
  settledAt: Date;
}

/** Closes an open job (one of `from`); null when it was already closed (someone else won). */
export async function closeJob(tx: Sql, id: string, c: Closing, from: readonly PlatformStatus[] = OPEN_STATUSES): Promise<PlatformJob | null> {
  const rows = await tx.query(
    `UPDATE platform_jobs SET status = $2, charged_micros = $3, usage_metrics = $4, result = $5, result_hash = $6, evidence_hash = $7,
       evidence_bundle_id = $8, error = $9, started_at = COALESCE(started_at, $10), finished_at = $11, settled_at = $12,
       owner = NULL, lease_until = NULL, updated_at = $12
      WHERE id = $1 AND status = ANY($13::text[]) RETURNING *`,
    [id, c.status, c.chargedMicros, c.usage ? JSON.stringify(c.usage) : null, c.result ? JSON.stringify(c.result) : null, c.resultHash,
      c.evidenceHash, c.evidenceBundleId, c.error ? JSON.stringify(c.error) : null, c.startedAt, c.finishedAt, c.settledAt, [...from]],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function openJobs(db: Sql, type: 'quantum' | 'compute'): Promise<PlatformJob[]> {
  const rows = await db.query(
    `SELECT * FROM platform_jobs WHERE status IN ${OPEN_SQL} AND type ${type === 'quantum' ? "= 'QUANTUM_CIRCUIT'" : `IN ${COMPUTE_SQL}`} ORDER BY created_at`,
  );
  return rows.map(fromRow);
}

export async function extendHoldsOfOpenJobs(db: Sql, until: Date): Promise<void> {
  await db.query(
    `UPDATE billing_holds h SET expires_at = $1 FROM platform_jobs j
      WHERE h.id = j.hold_id AND h.status = 'open' AND j.status IN ${OPEN_SQL} AND h.expires_at < $1`,
    [until],
  );
}
