/** The rows of `supplier_jobs` and `supplier_batches`: inserts, scoped reads and conditional status changes. */
import { newId } from '../../platform/identity/ids.ts';
import type { Sql } from '../../platform/storage/database.ts';
import type { SupplierId } from './config.ts';

export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
export const FINAL: readonly JobState[] = ['completed', 'failed', 'cancelled'];

export interface JobResult {
  counts: Record<string, number>;
  shots: number;
  /** Seconds the run took (engine time when emulated; the supplier's figure when remote). */
  execution_time: number | null;
  num_qubits: number;
  optimization?: Record<string, unknown> | null;
  seed?: number | null;
}

export interface SupplierJob {
  id: string;
  accountId: string;
  keyId: string | null;
  supplier: SupplierId;
  publicId: string;
  mode: 'emulated' | 'remote';
  provider: string;
  target: string;
  backend: string;
  quantumJobId: string | null;
  remoteId: string | null;
  remoteStatus: string | null;
  shots: number;
  numQubits: number;
  qasm: string;
  circuitHash: string;
  costModel: string;
  estimatedMicros: number;
  chargedMicros: number | null;
  holdId: string | null;
  batchId: string | null;
  storageBucket: string | null;
  storagePrefix: string | null;
  resultLocation: string | null;
  status: JobState;
  result: JobResult | null;
  error: { code: string; message: string } | null;
  resultHash: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

type Row = Record<string, unknown>;
const json = <T>(v: unknown): T | null => (v === null || v === undefined ? null : typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

export function fromRow(r: Row): SupplierJob {
  return {
    id: r.id as string,
    accountId: r.account_id as string,
    keyId: (r.key_id as string | null) ?? null,
    supplier: r.supplier as SupplierId,
    publicId: r.public_id as string,
    mode: r.mode as 'emulated' | 'remote',
    provider: r.provider as string,
    target: r.target as string,
    backend: r.backend as string,
    quantumJobId: (r.quantum_job_id as string | null) ?? null,
    remoteId: (r.remote_id as string | null) ?? null,
    remoteStatus: (r.remote_status as string | null) ?? null,
    shots: Number(r.shots),
    numQubits: Number(r.num_qubits),
    qasm: r.qasm as string,
    circuitHash: r.circuit_hash as string,
    costModel: r.cost_model as string,
    estimatedMicros: Number(r.estimated_micros),
    chargedMicros: r.charged_micros === null || r.charged_micros === undefined ? null : Number(r.charged_micros),
    holdId: (r.hold_id as string | null) ?? null,
    batchId: (r.batch_id as string | null) ?? null,
    storageBucket: (r.storage_bucket as string | null) ?? null,
    storagePrefix: (r.storage_prefix as string | null) ?? null,
    resultLocation: (r.result_location as string | null) ?? null,
    status: r.status as JobState,
    result: json<JobResult>(r.result),
    error: json<{ code: string; message: string }>(r.error),
    resultHash: (r.result_hash as string | null) ?? null,
    createdAt: date(r.created_at)!,
    updatedAt: date(r.updated_at)!,
    completedAt: date(r.completed_at),
  };
}

export interface NewSupplierJob {
  id?: string;
  accountId: string;
  keyId: string | null;
  supplier: SupplierId;
  publicId: string;
  mode: 'emulated' | 'remote';
  provider: string;
  target: string;
  backend: string;
  shots: number;
  numQubits: number;
  qasm: string;
  circuitHash: string;
  costModel: string;
  estimatedMicros: number;
  holdId: string | null;
  /** Set before the job system sees the job, so that its end always finds this row. */
  quantumJobId?: string | null;
  batchId?: string | null;
  storageBucket?: string | null;
  storagePrefix?: string | null;
}

/** Inserts the row; null when the account already has a job of that supplier with this public id. */
export async function insertSupplierJob(db: Sql, j: NewSupplierJob, now: Date): Promise<SupplierJob | null> {
  const rows = await db.query<Row>(
    `INSERT INTO supplier_jobs (id, account_id, key_id, supplier, public_id, mode, provider, target, backend, shots, num_qubits, qasm,
       circuit_hash, cost_model, estimated_micros, hold_id, batch_id, storage_bucket, storage_prefix, quantum_job_id, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $21, 'queued', $20, $20)
     ON CONFLICT (account_id, supplier, public_id) DO NOTHING RETURNING *`,
    [j.id ?? newId('sj'), j.accountId, j.keyId, j.supplier, j.publicId, j.mode, j.provider, j.target, j.backend, j.shots, j.numQubits, j.qasm,
      j.circuitHash, j.costModel, j.estimatedMicros, j.holdId, j.batchId ?? null, j.storageBucket ?? null, j.storagePrefix ?? null, now, j.quantumJobId ?? null],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function deleteSupplierJob(db: Sql, id: string): Promise<void> {
  await db.query('DELETE FROM supplier_jobs WHERE id = $1', [id]);
}

/** Records where the job went once the supplier (or the job system) accepted it. */
export async function attachSubmission(db: Sql, id: string, s: { quantumJobId?: string | null; remoteId?: string | null; remoteStatus?: string | null }, now: Date): Promise<void> {
  await db.query(
    'UPDATE supplier_jobs SET quantum_job_id = COALESCE($2, quantum_job_id), remote_id = COALESCE($3, remote_id), remote_status = COALESCE($4, remote_status), updated_at = $5 WHERE id = $1',
    [id, s.quantumJobId ?? null, s.remoteId ?? null, s.remoteStatus ?? null, now],
  );
}

/** The account's job of that supplier by its public id (another account's reads as null). */
export async function findJob(db: Sql, accountId: string, supplier: SupplierId, publicId: string): Promise<SupplierJob | null> {
  const rows = await db.query<Row>('SELECT * FROM supplier_jobs WHERE account_id = $1 AND supplier = $2 AND public_id = $3', [accountId, supplier, publicId]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** The account's job by public id across suppliers (history, provenance). */
export async function findAnyJob(db: Sql, accountId: string, publicId: string): Promise<SupplierJob | null> {
  const rows = await db.query<Row>('SELECT * FROM supplier_jobs WHERE account_id = $1 AND public_id = $2 ORDER BY created_at LIMIT 1', [accountId, publicId]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function jobById(db: Sql, id: string): Promise<SupplierJob | null> {
  const rows = await db.query<Row>('SELECT * FROM supplier_jobs WHERE id = $1', [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function jobByQuantumId(db: Sql, quantumJobId: string): Promise<SupplierJob | null> {
  const rows = await db.query<Row>('SELECT * FROM supplier_jobs WHERE quantum_job_id = $1', [quantumJobId]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Moves an active job to running (queued only); no-op otherwise. */
export async function markRunning(db: Sql, id: string, remoteStatus: string | null, now: Date): Promise<void> {
  await db.query(
    `UPDATE supplier_jobs SET status = 'running', remote_status = COALESCE($2, remote_status), updated_at = $3 WHERE id = $1 AND status = 'queued'`,
    [id, remoteStatus, now],
  );
}

/**
 * Ends a job once: the UPDATE names the states it may leave, so of two racing finishers
 * (a poll and the job system's handler, or a cancel) exactly one gets the row back.
 */
export async function finishJob(
  db: Sql,
  id: string,
  end: { status: 'completed' | 'failed' | 'cancelled'; result?: JobResult | null; error?: { code: string; message: string } | null; resultHash?: string | null; chargedMicros: number; remoteStatus?: string | null; resultLocation?: string | null },
  now: Date,
  from: readonly JobState[] = ['queued', 'running'],
): Promise<SupplierJob | null> {
  const rows = await db.query<Row>(
    `UPDATE supplier_jobs SET status = $2, result = $3, error = $4, result_hash = $5, charged_micros = $6,
       remote_status = COALESCE($7, remote_status), result_location = COALESCE($8, result_location), completed_at = $9, updated_at = $9
     WHERE id = $1 AND status = ANY($10) RETURNING *`,
    [id, end.status, end.result ? JSON.stringify(end.result) : null, end.error ? JSON.stringify(end.error) : null, end.resultHash ?? null,
      end.chargedMicros, end.remoteStatus ?? null, end.resultLocation ?? null, now, from],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export interface HistoryQuery {
  accountId: string;
  states?: readonly JobState[];
  supplier?: SupplierId;
  batchId?: string;
  from?: Date;
  to?: Date;
  limit: number;
  offset: number;
}

export async function listSupplierJobs(db: Sql, q: HistoryQuery): Promise<{ jobs: SupplierJob[]; total: number }> {
  const where = ['account_id = $1'];
  const params: unknown[] = [q.accountId];
  const add = (clause: string, v: unknown) => {
    params.push(v);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (q.states) add('status = ANY(?)', q.states);
  if (q.supplier) add('supplier = ?', q.supplier);
  if (q.batchId) add('batch_id = ?', q.batchId);
  if (q.from) add('created_at >= ?', q.from);
  if (q.to) add('created_at <= ?', q.to);
  const filter = where.join(' AND ');
  const [c] = await db.query<{ n: number | string }>(`SELECT count(*) AS n FROM supplier_jobs WHERE ${filter}`, params);
  const rows = await db.query<Row>(
    `SELECT * FROM supplier_jobs WHERE ${filter} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, q.limit, q.offset],
  );
  return { jobs: rows.map(fromRow), total: Number(c?.n ?? 0) };
}

/** Active remote jobs not looked at for a while (the poller's work list). */
export async function staleRemoteJobs(db: Sql, before: Date, limit = 20): Promise<SupplierJob[]> {
  const rows = await db.query<Row>(
    `SELECT * FROM supplier_jobs WHERE mode = 'remote' AND status IN ('queued', 'running') AND updated_at < $1 ORDER BY updated_at LIMIT $2`,
    [before, limit],
  );
  return rows.map(fromRow);
}

export async function touchJob(db: Sql, id: string, now: Date): Promise<void> {
  await db.query('UPDATE supplier_jobs SET updated_at = $2 WHERE id = $1', [id, now]);
}

// ------------------------------------------------------------------ batches

export interface Batch {
  id: string;
  accountId: string;
  supplier: string;
  target: string;
  jobCount: number;
  createdAt: Date;
  completedAt: Date | null;
}

const batchFromRow = (r: Row): Batch => ({
  id: r.id as string,
  accountId: r.account_id as string,
  supplier: r.supplier as string,
  target: r.target as string,
  jobCount: Number(r.job_count),
  createdAt: date(r.created_at)!,
  completedAt: date(r.completed_at),
});

export async function insertBatch(db: Sql, b: { id: string; accountId: string; supplier: string; target: string; jobCount: number }, now: Date): Promise<void> {
  await db.query('INSERT INTO supplier_batches (id, account_id, supplier, target, job_count, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    b.id, b.accountId, b.supplier, b.target, b.jobCount, now,
  ]);
}

export async function findBatch(db: Sql, accountId: string, id: string): Promise<Batch | null> {
  const rows = await db.query<Row>('SELECT * FROM supplier_batches WHERE id = $1 AND account_id = $2', [id, accountId]);
  return rows[0] ? batchFromRow(rows[0]) : null;
}

/** Marks the batch complete when none of its jobs is active; true for the one caller that did it. */
export async function completeBatchIfDone(db: Sql, id: string, now: Date): Promise<Batch | null> {
  const rows = await db.query<Row>(
    `UPDATE supplier_batches b SET completed_at = $2
      WHERE b.id = $1 AND b.completed_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM supplier_jobs j WHERE j.batch_id = b.id AND j.status IN ('queued', 'running'))
        AND (SELECT count(*) FROM supplier_jobs j WHERE j.batch_id = b.id) = b.job_count
      RETURNING *`,
    [id, now],
  );
  return rows[0] ? batchFromRow(rows[0]) : null;
}
