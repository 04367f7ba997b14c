/**
 * Rows of `runtime_jobs`. Every change of `phase` is one conditional UPDATE naming the phases
 * it may leave, so an approval racing a cancel (or two approvals) ends with exactly one winner.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../../engines/crypto/encoding.ts';
import type { Sql } from '../../platform/storage/database.ts';
import type { Optimization } from '../../platform/quantum-jobs/index.ts';

export type Phase = 'validating' | 'awaiting_approval' | 'submitted' | 'cancelled' | 'failed';

export interface RuntimeJob {
  id: string;
  accountId: string;
  keyId: string | null;
  backendId: string;
  qasm: string;
  shots: number;
  mode: 'sync' | 'async';
  phase: Phase;
  approvalRequired: boolean;
  approvalTokenHash: string | null;
  estimatedMicros: number | null;
  costBasis: Record<string, unknown> | null;
  prepared: Optimization | null;
  holdId: string | null;
  chargedMicros: number | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  approvedAt: Date | null;
  approvedBy: string | null;
  finishedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  key_id: string | null;
  backend_id: string;
  qasm: string;
  shots: number;
  mode: 'sync' | 'async';
  phase: Phase;
  approval_required: boolean;
  approval_token_hash: string | null;
  estimated_micros: string | number | null;
  cost_basis: unknown;
  prepared: unknown;
  hold_id: string | null;
  charged_micros: string | number | null;
  error: unknown;
  approved_at: Date | string | null;
  approved_by: string | null;
  finished_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const json = <T>(v: unknown): T | null => (v === null || v === undefined ? null : ((typeof v === 'string' ? JSON.parse(v) : v) as T));
const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));
const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

function fromRow(r: Row): RuntimeJob {
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    backendId: r.backend_id,
    qasm: r.qasm,
    shots: r.shots,
    mode: r.mode,
    phase: r.phase,
    approvalRequired: r.approval_required,
    approvalTokenHash: r.approval_token_hash,
    estimatedMicros: num(r.estimated_micros),
    costBasis: json(r.cost_basis),
    prepared: json(r.prepared),
    holdId: r.hold_id,
    chargedMicros: num(r.charged_micros),
    error: json(r.error),
    approvedAt: date(r.approved_at),
    approvedBy: r.approved_by,
    finishedAt: date(r.finished_at),
    createdAt: date(r.created_at)!,
    updatedAt: date(r.updated_at)!,
  };
}

/** A new approval token (shown once) and the hash that is kept. */
export function newApprovalToken(): { token: string; hash: string } {
  const token = `apv_${randomBytes(24).toString('base64url')}`;
  return { token, hash: sha256Hex(token) };
}


/** Compares a presented token with the kept hash in constant time. */
export function tokenMatches(presented: string, hash: string | null): boolean {
  if (!hash) return false;
  return timingSafeEqual(Buffer.from(sha256Hex(presented), 'hex'), Buffer.from(hash, 'hex'));
}

/** What a submission writes: the job's own fields as submitted, by a key, at `now`. */
export type NewRuntimeJob = Pick<
  RuntimeJob,
  'id' | 'accountId' | 'backendId' | 'qasm' | 'shots' | 'mode' | 'phase' | 'approvalRequired' | 'approvalTokenHash' | 'estimatedMicros' | 'costBasis' | 'prepared'
> & { keyId: string; now: Date };

export async function insertRuntimeJob(db: Sql, j: NewRuntimeJob): Promise<RuntimeJob> {
  const [row] = await db.query<Row>(
    `INSERT INTO runtime_jobs (id, account_id, key_id, backend_id, qasm, shots, mode, phase, approval_required, approval_token_hash,
       estimated_micros, cost_basis, prepared, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14, $14) RETURNING *`,
    [j.id, j.accountId, j.keyId, j.backendId, j.qasm, j.shots, j.mode, j.phase, j.approvalRequired, j.approvalTokenHash,
      j.estimatedMicros, j.costBasis === null ? null : JSON.stringify(j.costBasis), j.prepared === null ? null : JSON.stringify(j.prepared), j.now],
  );
  return fromRow(row!);
}

/** The account's job (another account's reads as null, like an unknown id); no account: any job. */
export async function selectRuntimeJob(db: Sql, id: string, accountId?: string): Promise<RuntimeJob | null> {
  const [row] = await db.query<Row>('SELECT * FROM runtime_jobs WHERE id = $1 AND ($2::text IS NULL OR account_id = $2)', [id, accountId ?? null]);
  return row ? fromRow(row) : null;
}

export async function selectByPhase(db: Sql, phases: readonly Phase[]): Promise<RuntimeJob[]> {
  const rows = await db.query<Row>('SELECT * FROM runtime_jobs WHERE phase = ANY($1) ORDER BY created_at', [phases]);
  return rows.map(fromRow);
}

/**
 * Moves a job from one of `from` to `to`, setting `fields` (column -> value) in the same
 * statement; null when the job was in none of `from` (someone else moved it first).
 */
export async function transition(
  db: Sql,
  id: string,
  from: readonly Phase[],
  to: Phase,
  now: Date,
  fields: Record<string, unknown> = {},
): Promise<RuntimeJob | null> {
  const names = Object.keys(fields);
  const sets = names.map((n, i) => `${n} = $${i + 5}${n === 'cost_basis' || n === 'prepared' || n === 'error' ? '::jsonb' : ''}`);
  const values = names.map((n) => {
    const v = fields[n];
    return v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v;
  });
  const [row] = await db.query<Row>(
    `UPDATE runtime_jobs SET phase = $3, updated_at = $4${sets.length ? `, ${sets.join(', ')}` : ''}
      WHERE id = $1 AND phase = ANY($2) RETURNING *`,
    [id, from, to, now, ...values],
  );
  return row ? fromRow(row) : null;
}

/** Records what a settled job was charged (once the quantum job ended). */
export async function recordFinish(db: Sql, id: string, o: { chargedMicros: number | null; finishedAt: Date }): Promise<void> {
  await db.query('UPDATE runtime_jobs SET charged_micros = COALESCE($2, charged_micros), finished_at = COALESCE(finished_at, $3), updated_at = $3 WHERE id = $1', [
    id,
    o.chargedMicros,
    o.finishedAt,
  ]);
}
