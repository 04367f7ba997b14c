/**
 * The job rows and every change of their status. Each change is one conditional UPDATE on
 * the current status, so two racing changes (a cancel and a finish) leave exactly one of them
 * applied: the state machine lives in the WHERE clauses below, not in memory.
 *
 *   queued -> validating -> optimizing -> running -> completed
 *   (validating | optimizing can jump ahead: a fast job writes only its last stage)
 *   any non-terminal -> failed | cancelled;  failed -> queued (retry);
 *   validating | optimizing | running with a dead owner -> queued (recovery)
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { newId } from '../identity/ids.ts';
import type { Database, Sql } from '../storage/database.ts';

export type JobStatus = 'queued' | 'validating' | 'optimizing' | 'running' | 'completed' | 'failed' | 'cancelled';
export type JobKind = 'run' | 'optimize' | 'simulate';
export type MinutesKind = 'quantum' | 'simulation';

export const ACTIVE: readonly JobStatus[] = ['queued', 'validating', 'optimizing', 'running'];
export const TERMINAL: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];
const IN_WORK = `('validating', 'optimizing', 'running')`;
const ACTIVE_SQL = `('queued', 'validating', 'optimizing', 'running')`;

export interface JobError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface QuantumJob<I = Record<string, unknown>> {
  id: string;
  service: string;
  accountId: string;
  keyId: string | null;
  kind: JobKind;
  backend: string;
  status: JobStatus;
  input: I;
  error: JobError | null;
  batchId: string | null;
  queueSeq: number;
  attempts: number;
  minutesKind: MinutesKind | null;
  /** Minutes held by the current attempt (its wall-clock limit). */
  holdMinutes: number;
  /** Minutes held over every attempt; always charged + refunded once the job is terminal. */
  reservedMinutes: number;
  chargedMinutes: number;
  refundedMinutes: number;
  credits: number;
  /** The engine's run time of the last attempt. */
  executionMs: number | null;
  createdAt: Date;
  startedAt: Date | null;
  runStartedAt: Date | null;
  finishedAt: Date | null;
  updatedAt: Date;
}

interface Row {
  id: string;
  service: string;
  account_id: string;
  key_id: string | null;
  kind: JobKind;
  backend: string;
  status: JobStatus;
  input: unknown;
  error: JobError | null;
  batch_id: string | null;
  queue_seq: number | string;
  attempts: number;
  minutes_kind: MinutesKind | null;
  hold_minutes: string | number;
  reserved_minutes: string | number;
  charged_minutes: string | number;
  refunded_minutes: string | number;
  credits: number;
  execution_ms: number | null;
  created_at: Date | string;
  started_at: Date | string | null;
  run_started_at: Date | string | null;
  finished_at: Date | string | null;
  updated_at: Date | string;
}

const COLUMNS = `id, service, account_id, key_id, kind, backend, status, input, error, batch_id, queue_seq, attempts,
  minutes_kind, hold_minutes, reserved_minutes, charged_minutes, refunded_minutes, credits, execution_ms,
  created_at, started_at, run_started_at, finished_at, updated_at`;

/** The columns but the input, for statements whose caller holds the input already. */
const COLUMNS_BUT_INPUT = COLUMNS.replace(' input,', '');

const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

export function fromRow<I>(r: Row): QuantumJob<I> {
  return {
    id: r.id,
    service: r.service,
    accountId: r.account_id,
    keyId: r.key_id,
    kind: r.kind,
    backend: r.backend,
    status: r.status,
    input: (typeof r.input === 'string' ? JSON.parse(r.input) : r.input) as I,
    error: typeof r.error === 'string' ? (JSON.parse(r.error) as JobError) : r.error,
    batchId: r.batch_id,
    queueSeq: Number(r.queue_seq),
    attempts: r.attempts,
    minutesKind: r.minutes_kind,
    holdMinutes: Number(r.hold_minutes),
    reservedMinutes: Number(r.reserved_minutes),
    chargedMinutes: Number(r.charged_minutes),
    refundedMinutes: Number(r.refunded_minutes),
    credits: r.credits,
    executionMs: r.execution_ms === null ? null : Number(r.execution_ms),
    createdAt: date(r.created_at)!,
    startedAt: date(r.started_at),
    runStartedAt: date(r.run_started_at),
    finishedAt: date(r.finished_at),
    updatedAt: date(r.updated_at)!,
  };
}

/** Minutes as an exact decimal of at most 9 places (the ledger's unit). */
export function minutes(ms: number): string {
  return (Math.max(0, ms) / 60_000).toFixed(9);
}

// ---------------------------------------------------------------- results

/** Results whose JSON is larger than this are stored gzip-compressed, as written. */
export const COMPRESS_ABOVE_BYTES = 64 * 1024;

/**
 * Results whose JSON is larger than this (and at most COMPRESS_ABOVE_BYTES) are stored
 * gzip-compressed too, with their keys in the order jsonb keeps them: they read back exactly
 * as from a jsonb column, without the embedded store parsing them into jsonb (12 ms for the
 * 50 KB of a 20-qubit run's counts, against 1 ms for the compressed bytes).
 */
export const INLINE_MAX_BYTES = 8 * 1024;

interface Encoded {
  json: string | null;
  gz: Buffer | null;
  /** The JSON text the row reads back as, keys in jsonb's order; null when stored as written. */
  readAs: string | null;
}

/** Each result's encoding, made once for the row and the memory of recent results (runner.ts). */
const encodings = new WeakMap<object, Encoded>();

function encode(result: unknown): Encoded {
  const known = typeof result === 'object' && result !== null ? encodings.get(result) : undefined;
  if (known) return known;
  const json = JSON.stringify(result);
  let out: Encoded;
  if (json.length > COMPRESS_ABOVE_BYTES) out = { json: null, gz: gzipSync(json, { level: 6 }), readAs: null };
  else {
    const readAs = JSON.stringify(jsonbOrder(result));
    out = json.length > INLINE_MAX_BYTES ? { json, gz: gzipSync(readAs, { level: 1 }), readAs } : { json, gz: null, readAs };
  }
  if (typeof result === 'object' && result !== null) encodings.set(result, out);
  return out;
}

/**
 * How a result is stored: `json` inline (null for a result stored as written, compressed),
 * `gz` the compressed bytes.
 */
export function encodeResult(result: unknown): { json: string | null; gz: Buffer | null } {
  const { json, gz } = encode(result);
  return { json, gz };
}

/** The JSON text a completed row of `result` reads back as (jsonb's key order); null for a result stored as written. */
export function resultAsRead(result: unknown): string | null {
  return encode(result).readAs;
}

/** jsonb's order of object keys: shorter first, then by their UTF-8 bytes. */
function jsonbKeyOrder(a: string, b: string): number {
  const la = Buffer.byteLength(a);
  const lb = Buffer.byteLength(b);
  if (la !== lb) return la - lb;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The same order for ASCII keys, whose length is their byte length and whose string order is byte order. */
const asciiKeyOrder = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
const ASCII = /^[\x00-\x7f]*$/;

/** An object's keys in jsonb's order (a 20-qubit run's counts are 1,000 ASCII keys: no Buffer per comparison). */
function jsonbKeys(o: object): string[] {
  const keys = Object.keys(o);
  return keys.sort(keys.every((k) => ASCII.test(k)) ? asciiKeyOrder : jsonbKeyOrder);
}

const NOT_PLAIN = Symbol('not plain JSON data');

/** Values JSON leaves out of an object and writes as null in an array. */
const omitted = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * `v` as JSON writes it and jsonb reads it back (object keys in jsonb's order, no undefined, -0
 * as 0, NaN and infinities as null), built from `v` itself when it is plain data: plain
 * objects, arrays and primitives. NOT_PLAIN when something in it writes otherwise (a Date, a
 * typed array, a class instance, toJSON, a bigint).
 */
function plainAsJsonb(v: unknown): unknown {
  if (typeof v === 'string' || typeof v === 'boolean' || v === null) return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v + 0 : null;
  if (typeof v !== 'object') return NOT_PLAIN;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const item = omitted(v[i]) ? null : plainAsJsonb(v[i]);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in v) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k of jsonbKeys(v)) {
    const value = (v as Record<string, unknown>)[k];
    if (omitted(value)) continue;
    const item = plainAsJsonb(value);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[k] = item;
  }
  return out;
}

/**
 * A value as the store reads it back after storing its JSON as jsonb, so that it serializes as
 * a row's would: built from the value itself for plain data, through its JSON text otherwise.
 */
export function jsonbOrder(v: unknown): unknown {
  const plain = plainAsJsonb(v);
  if (plain !== NOT_PLAIN) return plain;
  const text = JSON.stringify(v);
  return text === undefined ? undefined : plainAsJsonb(JSON.parse(text));
}

export function decodeResult<R>(row: { result: unknown; result_gz: Uint8Array | null }): R | null {
  if (row.result_gz) return JSON.parse(gunzipSync(Buffer.from(row.result_gz)).toString('utf8')) as R;
  if (row.result === null || row.result === undefined) return null;
  return (typeof row.result === 'string' ? JSON.parse(row.result) : row.result) as R;
}

// ---------------------------------------------------------------- submit

export interface SubmitLimits {
  /** Most jobs of this account and service not yet finished. */
  maxConcurrent?: number;
  /** Minutes of `minutesKind` this account may use from `periodStart` (held + charged). */
  minutesIncluded?: number;
  /** Optimization credits this account may use from `periodStart`. */
  creditsIncluded?: number;
  periodStart?: Date;
}

export interface NewJob<I> {
  service: string;
  accountId: string;
  keyId?: string | null;
  kind: JobKind;
  backend: string;
  input: I;
  batchId?: string | null;
  minutesKind?: MinutesKind | null;
  /**
   * The wall-clock limit of one attempt, held against the minutes quota until the job settles;
   * with `limits.minutesIncluded` it is shortened to what is left of the quota.
   */
  holdMinutes?: number;
  credits?: number;
  limits?: SubmitLimits;
  /** Job id to use (default: a new `job_...`). */
  id?: string;
}

/** Why a submission was refused before anything was written or charged. */
export class QuotaError extends Error {
  constructor(
    readonly reason: 'concurrent_jobs' | 'minutes' | 'credits',
    message: string,
    readonly limit: number,
    readonly used: number,
  ) {
    super(message);
    this.name = 'QuotaError';
  }
}

// A constant shared by every process: the advisory-lock namespace of quota checks.
const QUOTA_LOCK = 7_310_901;

/**
 * Inserts a job as `queued`. The quota checks and the insert are one statement, whose checks
 * count under a per-account advisory lock (quantum_account_usage), so concurrent submissions
 * can never pass a limit together.
 */
export async function insertJob<I>(db: Database, job: NewJob<I>, now: Date): Promise<QuantumJob<I>> {
  return insertAndClaim(db, job, now, null);
}

/**
 * A claim made by the insert itself, for a process with a free worker: the row is written
 * already taken (`validating`, owned and leased) when the job would head its queue, so the
 * submitting process runs it without a second statement. The conditions are the claim's
 * (claimNext): nothing queued before it on its backend, and for a run on an emulated device no
 * live job of that device in work.
 */
export interface InsertClaim {
  owner: string;
  leaseUntil: Date;
  /** The lease clock (real time), as claimNext's `leaseNow`. */
  leaseNow: Date;
  /** The job occupies an emulated device while it runs. */
  device: boolean;
  /**
   * The job already ran, in the submitting process before its insert (a small circuit,
   * inline.ts): taken at insert, the row is written finished, `completed` with this result and
   * charged as `complete` charges, with no claim, lease or second statement. Not taken (a job
   * queued before it), it is written `queued` as without this and the result is dropped.
   */
  completed?: RanBeforeInsert;
}

/** A job's run done before its insert (InsertClaim.completed). */
export interface RanBeforeInsert {
  result: unknown;
  executionMs: number;
  runStartedAt: Date;
  finishedAt: Date;
}

/**
 * The condition of a claim at insert (see InsertClaim); its parameters are $p..$p+2
 * (claimParams). The device clause is left out of the text when it does not apply: the
 * embedded store plans every statement afresh, and each subquery adds to that.
 */
const claimOk = (p: number, device: boolean) => `(SELECT ($${p}::text IS NOT NULL AND $${p + 1}::timestamptz IS NOT NULL AND $${p + 2}::timestamptz IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM quantum_jobs e WHERE e.backend = $6 AND e.status = 'queued')${device ? `
     AND NOT EXISTS (SELECT 1 FROM quantum_jobs r WHERE r.backend = $6 AND r.kind = 'run' AND r.status IN ${IN_WORK} AND r.lease_until > $${p + 2}::timestamptz)` : ''}) AS ok)`;
/**
 * What a claim at insert writes: its condition `c.ok` (claimOk), the row's status and updated_at
 * (the statement's $12 when not taken), the claim's own columns and values, and their
 * parameters, numbered from $p; `hold` is the SQL of the hold written. A job that already ran
 * (InsertClaim.completed) is written as `complete` would leave it: its result, times and
 * charge, no owner or lease.
 */
function claimSql(p: number, claim: InsertClaim, hold: string): { ok: string; status: string; updatedAt: string; columns: string; values: string; params: unknown[] } {
  const when = (v: string, otherwise = 'NULL') => `CASE WHEN c.ok THEN ${v} ELSE ${otherwise} END`;
  const ok = claimOk(p, claim.device);
  const params = claimParams(claim);
  if (!claim.completed) {
    return {
      ok,
      params,
      status: when(`'validating'`, `'queued'`),
      updatedAt: '$12::timestamptz',
      columns: ', owner, lease_until, started_at, attempts',
      values: `, ${when(`$${p}::text`)}, ${when(`$${p + 1}::timestamptz`)}, ${when('$12::timestamptz')}, ${when('1', '0')}`,
    };
  }
  const charged = `LEAST(${hold}, $${p + 8}::numeric)`;
  return {
    ok,
    params,
    status: when(`'completed'`, `'queued'`),
    updatedAt: when(`$${p + 7}::timestamptz`, '$12::timestamptz'),
    columns: ', started_at, attempts, run_started_at, finished_at, execution_ms, result, result_gz, charged_minutes, refunded_minutes',
    values: `, ${when('$12::timestamptz')}, ${when('1', '0')}, ${when(`$${p + 6}::timestamptz`)}, ${when(`$${p + 7}::timestamptz`)}, ` +
      `${when(`$${p + 5}::double precision`)}, ${when(`$${p + 3}::jsonb`)}, ${when(`$${p + 4}::bytea`)}, ${when(charged, '0')}, ${when(`${hold} - ${charged}`, '0')}`,
  };
}

function claimParams(claim: InsertClaim): unknown[] {
  const base = [claim.owner, claim.leaseUntil, claim.leaseNow];
  const ran = claim.completed;
  if (!ran) return base;
  const { json, gz } = encodeResult(ran.result);
  return [...base, gz ? null : json, gz, ran.executionMs, ran.runStartedAt, ran.finishedAt, minutes(ran.executionMs)];
}

/**
 * insertJob, and with `claim` the claim at insert (see InsertClaim): the row comes back
 * `validating` when it was taken, `queued` otherwise.
 */
export async function insertAndClaim<I>(db: Database, job: NewJob<I>, now: Date, claim: InsertClaim | null): Promise<QuantumJob<I>> {
  const id = job.id ?? newId('job');
  // The store does not send the input back (44 KB of circuit texts for 20 qubits): the row
  // carries it as jsonb reads it.
  const inputJson = JSON.stringify(job.input);
  const withInput = (row: Row): QuantumJob<I> => fromRow<I>({ ...row, input: jsonbOrder(job.input) });
  const hold = (job.holdMinutes ?? 0).toFixed(9);
  const limits = job.limits ?? {};
  const checks = limits.maxConcurrent !== undefined || limits.minutesIncluded !== undefined || limits.creditsIncluded !== undefined;
  if (!checks) {
    const base = [id, job.service, job.accountId, job.keyId ?? null, job.kind, job.backend, inputJson, job.batchId ?? null,
      job.minutesKind ?? null, hold, job.credits ?? 0, now];
    const taken = claim ? claimSql(13, claim, '$10::numeric') : null;
    const [row] = taken
      ? await db.query<Row>(
          `INSERT INTO quantum_jobs (id, service, account_id, key_id, kind, backend, status, input, batch_id, minutes_kind,
             hold_minutes, reserved_minutes, credits, created_at, updated_at${taken.columns})
           SELECT $1, $2, $3, $4, $5, $6, ${taken.status}, $7::jsonb, $8, $9, $10::numeric, $10::numeric,
                  $11::int, $12::timestamptz, ${taken.updatedAt}${taken.values}
             FROM ${taken.ok} c
           RETURNING ${COLUMNS_BUT_INPUT}`,
          [...base, ...taken.params],
        )
      : await db.query<Row>(
          `INSERT INTO quantum_jobs (id, service, account_id, key_id, kind, backend, status, input, batch_id, minutes_kind,
             hold_minutes, reserved_minutes, credits, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8, $9, $10, $10, $11, $12, $12)
           RETURNING ${COLUMNS_BUT_INPUT}`,
          base,
        );
    return withInput(row!);
  }
  const wantMinutes = limits.minutesIncluded !== undefined && Boolean(job.minutesKind);
  const wantCredits = limits.creditsIncluded !== undefined && (job.credits ?? 0) > 0;
  // The checks and the insert are one statement: quantum_account_usage (migrations.ts) takes
  // the account's advisory lock and then counts, so concurrent submissions of an account
  // wait for each other and each counts the jobs of those before it. $13 and $14 are typed by
  // the function's arguments.
  const usage = `SELECT active_jobs AS active, used_minutes AS minutes, used_credits AS credits
         FROM quantum_account_usage(${QUOTA_LOCK}, $2, $3, $13, $14, ${wantMinutes || wantCredits})`;
  const taken = claim ? claimSql(18, claim, 'h.hold') : null;
  const sql = `WITH u AS (${usage}),
     ins AS (
       INSERT INTO quantum_jobs (id, service, account_id, key_id, kind, backend, status, input, batch_id, minutes_kind,
         hold_minutes, reserved_minutes, credits, created_at, updated_at${taken?.columns ?? ''})
       SELECT $1, $2, $3, $4, $5, $6, ${taken?.status ?? `'queued'`}, $7::jsonb, $8, $9, h.hold, h.hold, $11::int,
              $12::timestamptz, ${taken?.updatedAt ?? '$12::timestamptz'}${taken?.values ?? ''}
         FROM u, LATERAL (SELECT CASE WHEN $16::numeric IS NULL THEN $10::numeric ELSE LEAST($10::numeric, round($16::numeric - u.minutes, 9)) END AS hold) h${taken ? `,
              LATERAL ${taken.ok} c` : ''}
        WHERE ($15::bigint IS NULL OR u.active < $15::bigint)
          AND ($16::numeric IS NULL OR $16::numeric - u.minutes >= 0.000001)
          AND ($17::bigint IS NULL OR u.credits + $11::int <= $17::bigint)
       RETURNING ${COLUMNS_BUT_INPUT})
     SELECT ins.*, u.active AS u_active, u.minutes AS u_minutes, u.credits AS u_credits FROM u LEFT JOIN ins ON true`;
  const params = [id, job.service, job.accountId, job.keyId ?? null, job.kind, job.backend, inputJson, job.batchId ?? null,
    job.minutesKind ?? null, hold, job.credits ?? 0, now, job.minutesKind ?? '', limits.periodStart ?? new Date(0),
    limits.maxConcurrent ?? null, wantMinutes ? limits.minutesIncluded : null, wantCredits ? limits.creditsIncluded : null,
    ...(taken?.params ?? [])];
  type Out = Row & { u_active: number | string; u_minutes: number | string; u_credits: number | string };
  const [row] = await db.query<Out>(sql, params);
  if (row?.id) return withInput(row);
  const active = Number(row?.u_active ?? 0);
  const used = Number(row?.u_minutes ?? 0);
  const credits = Number(row?.u_credits ?? 0);
  if (limits.maxConcurrent !== undefined && active >= limits.maxConcurrent) {
    throw new QuotaError('concurrent_jobs', `At most ${limits.maxConcurrent} jobs may be queued or running at once`, limits.maxConcurrent, active);
  }
  if (wantMinutes && limits.minutesIncluded! - used < 1e-6) {
    throw new QuotaError('minutes', `The ${job.minutesKind} minutes of this billing period are used up (${round(used)} of ${limits.minutesIncluded})`, limits.minutesIncluded!, used);
  }
  throw new QuotaError('credits', `The optimization credits of this billing period are used up (${credits} of ${limits.creditsIncluded})`, limits.creditsIncluded ?? 0, credits);
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

// ---------------------------------------------------------------- reads

export interface Scope {
  service: string;
  /** Omit only for operator or worker reads. */
  accountId?: string;
}

export async function selectJob<I>(db: Sql, scope: Scope, id: string): Promise<QuantumJob<I> | null> {
  const rows = await db.query<Row>(
    `SELECT ${COLUMNS} FROM quantum_jobs WHERE id = $1 AND service = $2 AND ($3::text IS NULL OR account_id = $3)`,
    [id, scope.service, scope.accountId ?? null],
  );
  return rows[0] ? fromRow<I>(rows[0]) : null;
}

/** The job and its result in one read. */
export async function selectJobWithResult<I, R>(db: Sql, scope: Scope, id: string): Promise<{ job: QuantumJob<I>; result: R | null } | null> {
  const rows = await db.query<Row & { result: unknown; result_gz: Uint8Array | null }>(
    `SELECT ${COLUMNS}, result, result_gz FROM quantum_jobs WHERE id = $1 AND service = $2 AND ($3::text IS NULL OR account_id = $3)`,
    [id, scope.service, scope.accountId ?? null],
  );
  const row = rows[0];
  return row ? { job: fromRow<I>(row), result: decodeResult<R>(row) } : null;
}

export async function selectResult<R>(db: Sql, scope: Scope, id: string): Promise<R | null> {
  const [row] = await db.query<{ result: unknown; result_gz: Uint8Array | null }>(
    `SELECT result, result_gz FROM quantum_jobs WHERE id = $1 AND service = $2 AND ($3::text IS NULL OR account_id = $3)`,
    [id, scope.service, scope.accountId ?? null],
  );
  return row ? decodeResult<R>(row) : null;
}

export interface ListQuery extends Scope {
  status?: JobStatus;
  statuses?: readonly JobStatus[];
  backend?: string;
  kind?: JobKind;
  batchId?: string;
  from?: Date;
  to?: Date;
  limit?: number;
  offset?: number;
}

export async function selectJobs<I>(db: Sql, q: ListQuery): Promise<{ jobs: QuantumJob<I>[]; total: number }> {
  const where = ['service = $1'];
  const params: unknown[] = [q.service];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (q.accountId !== undefined) add('account_id = ?', q.accountId);
  if (q.status) add('status = ?', q.status);
  if (q.statuses) add('status = ANY(?)', q.statuses);
  if (q.backend) add('backend = ?', q.backend);
  if (q.kind) add('kind = ?', q.kind);
  if (q.batchId) add('batch_id = ?', q.batchId);
  if (q.from) add('created_at >= ?', q.from);
  if (q.to) add('created_at <= ?', q.to);
  const filter = where.join(' AND ');
  const [count] = await db.query<{ n: number | string }>(`SELECT count(*) AS n FROM quantum_jobs WHERE ${filter}`, params);
  const rows = await db.query<Row>(
    `SELECT ${COLUMNS} FROM quantum_jobs WHERE ${filter} ORDER BY created_at DESC, queue_seq DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, q.limit ?? 50, q.offset ?? 0],
  );
  return { jobs: rows.map((r) => fromRow<I>(r)), total: Number(count?.n ?? 0) };
}

/** 1-based place of a queued job in its backend's FIFO queue; null once it left the queue. */
export async function queuePosition(db: Sql, job: QuantumJob<unknown>): Promise<number | null> {
  if (job.status !== 'queued') return null;
  const [row] = await db.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM quantum_jobs WHERE backend = $1 AND status = 'queued' AND queue_seq < $2`,
    [job.backend, job.queueSeq],
  );
  return Number(row?.n ?? 0) + 1;
}

// ---------------------------------------------------------------- transitions

/**
 * Claims the next job this process may run: FIFO; a run on an emulated device only when it
 * heads its device's queue and the device is free (optimize jobs need no device).
 */
export async function claimNext<I>(
  db: Sql,
  o: { owner: string; leaseUntil: Date; now: Date; devices: readonly string[]; busyDevices: readonly string[]; leaseNow: Date },
): Promise<QuantumJob<I> | null> {
  const rows = await db.query<Row>(
    `UPDATE quantum_jobs SET status = 'validating', owner = $1, lease_until = $2, started_at = COALESCE(started_at, $3),
            attempts = attempts + 1, updated_at = $3
      WHERE id = (
        SELECT j.id FROM quantum_jobs j
         WHERE j.status = 'queued'
           AND (j.kind <> 'run' OR NOT (j.backend = ANY($5::text[])))
           AND (j.kind <> 'run' OR NOT (j.backend = ANY($4::text[])) OR (
             NOT EXISTS (SELECT 1 FROM quantum_jobs r WHERE r.backend = j.backend AND r.kind = 'run' AND r.status IN ${IN_WORK} AND r.lease_until > $6)
             AND NOT EXISTS (SELECT 1 FROM quantum_jobs e WHERE e.backend = j.backend AND e.kind = 'run' AND e.status = 'queued' AND e.queue_seq < j.queue_seq)))
         ORDER BY j.queue_seq
         LIMIT 1
         FOR UPDATE SKIP LOCKED)
        AND status = 'queued'
      RETURNING ${COLUMNS}`,
    [o.owner, o.leaseUntil, o.now, o.devices, o.busyDevices, o.leaseNow],
  );
  return rows[0] ? fromRow<I>(rows[0]) : null;
}

/** Moves a job this process holds to a later working stage. */
export async function advance(db: Sql, id: string, owner: string, to: 'optimizing' | 'running', now: Date, runStartedAt?: Date): Promise<boolean> {
  const from = to === 'optimizing' ? `('validating')` : `('validating', 'optimizing')`;
  const rows = await db.query(
    `UPDATE quantum_jobs SET status = $3, updated_at = $4, run_started_at = COALESCE($5, run_started_at)
      WHERE id = $1 AND owner = $2 AND status IN ${from} RETURNING id`,
    [id, owner, to, now, runStartedAt ?? null],
  );
  return rows.length === 1;
}

/** Every column but `input`, which never changes after the insert: a holder of the row has it already. */
/**
 * Finishes a job this process holds; charges the measured minutes (at most the hold) and
 * refunds the rest. `input` is the job's input as its row read (the claim's or insert's
 * row): the store does not send it back again (the 30 KB of a 20-qubit job's circuit texts).
 */
export async function complete<I>(
  db: Sql,
  o: { id: string; owner: string; now: Date; result: unknown; executionMs: number; runStartedAt: Date | null; chargeMs: number; input: I },
): Promise<QuantumJob<I> | null> {
  const { json, gz } = encodeResult(o.result);
  const rows = await db.query<Row>(
    `UPDATE quantum_jobs SET status = 'completed', result = $3::jsonb, result_gz = $4, error = NULL, finished_at = $5, updated_at = $5,
            execution_ms = $6, run_started_at = COALESCE(run_started_at, $7), owner = NULL, lease_until = NULL,
            charged_minutes = charged_minutes + LEAST(hold_minutes, $8::numeric),
            refunded_minutes = refunded_minutes + hold_minutes - LEAST(hold_minutes, $8::numeric)
      WHERE id = $1 AND owner = $2 AND status IN ${IN_WORK}
      RETURNING ${COLUMNS_BUT_INPUT}`,
    [o.id, o.owner, gz ? null : json, gz, o.now, o.executionMs, o.runStartedAt, minutes(o.chargeMs)],
  );
  return rows[0] ? fromRow<I>({ ...rows[0], input: o.input }) : null;
}

/** Fails a job this process holds (or, with owner null, any non-terminal job). */
export async function fail<I>(
  db: Sql,
  o: { id: string; owner: string | null; now: Date; error: JobError; chargeMs: number; runStartedAt?: Date | null },
): Promise<QuantumJob<I> | null> {
  const rows = await db.query<Row>(
    `UPDATE quantum_jobs SET status = 'failed', error = $3::jsonb, finished_at = $4, updated_at = $4, owner = NULL, lease_until = NULL,
            run_started_at = COALESCE(run_started_at, $6),
            charged_minutes = charged_minutes + LEAST(hold_minutes, $5::numeric),
            refunded_minutes = refunded_minutes + hold_minutes - LEAST(hold_minutes, $5::numeric)
      WHERE id = $1 AND ($2::text IS NULL OR owner = $2) AND status IN ${ACTIVE_SQL}
      RETURNING ${COLUMNS}`,
    [o.id, o.owner, JSON.stringify(o.error), o.now, minutes(o.chargeMs), o.runStartedAt ?? null],
  );
  return rows[0] ? fromRow<I>(rows[0]) : null;
}

/**
 * Cancels a job that is not finished. A running job is charged the time it ran (at most its
 * hold) and refunded the rest; a job that had not started running is refunded its whole hold.
 */
export async function cancel<I>(
  db: Sql,
  scope: Scope,
  id: string,
  now: Date,
  /** Cancel only from these states (default: any unfinished one). */
  from?: readonly JobStatus[],
): Promise<{ job: QuantumJob<I>; previous: JobStatus; owner: string | null } | null> {
  const rows = await db.query<Row & { previous: JobStatus; previous_owner: string | null }>(
    `WITH old AS (
       SELECT id, status, owner,
              CASE WHEN status = 'running' AND run_started_at IS NOT NULL
                   THEN LEAST(hold_minutes, round((GREATEST(0, EXTRACT(EPOCH FROM ($4::timestamptz - run_started_at))) / 60)::numeric, 9))
                   ELSE 0 END AS used
         FROM quantum_jobs
        WHERE id = $1 AND service = $2 AND ($3::text IS NULL OR account_id = $3)
        FOR UPDATE)
     UPDATE quantum_jobs j SET status = 'cancelled', finished_at = $4, updated_at = $4, owner = NULL, lease_until = NULL,
            charged_minutes = j.charged_minutes + old.used,
            refunded_minutes = j.refunded_minutes + j.hold_minutes - old.used
       FROM old
      WHERE j.id = old.id AND j.status IN ${ACTIVE_SQL} AND ($5::text[] IS NULL OR j.status = ANY($5::text[]))
      RETURNING ${COLUMNS.split(',').map((c) => `j.${c.trim()}`).join(', ')}, old.status AS previous, old.owner AS previous_owner`,
    [id, scope.service, scope.accountId ?? null, now, from ? [...from] : null],
  );
  const row = rows[0];
  return row ? { job: fromRow<I>(row), previous: row.previous, owner: row.previous_owner } : null;
}

/** Puts a failed job back in its queue as a new attempt with a fresh hold of the same size. */
export async function requeueFailed<I>(db: Sql, scope: Scope, id: string, now: Date): Promise<QuantumJob<I> | null> {
  const rows = await db.query<Row>(
    `UPDATE quantum_jobs SET status = 'queued', error = NULL, result = NULL, result_gz = NULL, finished_at = NULL,
            started_at = NULL, run_started_at = NULL, execution_ms = NULL, updated_at = $4,
            queue_seq = nextval('quantum_job_queue_seq'), reserved_minutes = reserved_minutes + hold_minutes
      WHERE id = $1 AND service = $2 AND ($3::text IS NULL OR account_id = $3) AND status = 'failed'
      RETURNING ${COLUMNS}`,
    [id, scope.service, scope.accountId ?? null, now],
  );
  return rows[0] ? fromRow<I>(rows[0]) : null;
}

/** Jobs whose owner stopped renewing its lease (a killed process) go back to their queue. */
export async function recoverExpired(db: Sql, leaseNow: Date, everyOwner = false): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `UPDATE quantum_jobs SET status = 'queued', owner = NULL, lease_until = NULL, run_started_at = NULL
      WHERE status IN ${IN_WORK} AND ($2 OR lease_until IS NULL OR lease_until < $1)
      RETURNING id`,
    [leaseNow, everyOwner],
  );
  return rows.map((r) => r.id);
}

export async function renewLeases(db: Sql, owner: string, ids: readonly string[], leaseUntil: Date): Promise<void> {
  if (!ids.length) return;
  await db.query(`UPDATE quantum_jobs SET lease_until = $3 WHERE owner = $1 AND id = ANY($2::text[]) AND status IN ${IN_WORK}`, [owner, ids, leaseUntil]);
}

// ---------------------------------------------------------------- figures

export interface QueueStats {
  backend: string;
  /** Jobs waiting in the backend's queue (not yet taken by a worker). */
  queue_length: number;
  /** Jobs being validated, optimized or run on it now. */
  running: number;
  /** Mean minutes between submission and start of its last 50 started jobs. */
  average_wait_minutes: number;
  /** Mean minutes from start to finish of those of its last 50 started jobs that ended. */
  average_run_minutes: number;
  /** Seconds a job submitted now should wait before it starts (see README). */
  estimated_wait: number;
}

export async function queueStats(db: Sql, backends: readonly string[], o: { now: Date; parallel: (backend: string) => number }): Promise<Map<string, QueueStats>> {
  const rows = await db.query<QueueRow>(queueStatsSql(''), [backends]);
  return new Map(rows.map((r) => [r.backend, statsOf(r, o.parallel)]));
}

/**
 * The queue of a job's backend just after the job was inserted, and the job's 1-based place
 * in it then, in one statement (a submission's answer needs both). The place is the jobs ahead
 * of it (lower queue sequence) that had not started at its creation, plus itself, counted from
 * what each of those is now (still queued, or started after the new job was created), so that
 * it stays true even when the queue moves, or the job itself starts, before this runs.
 */
export async function queueAtInsert(
  db: Sql,
  job: { backend: string; queueSeq: number; createdAt: Date },
  o: { parallel: (backend: string) => number },
): Promise<{ stats: QueueStats; place: number }> {
  // Two disjoint counts, each on an index (the queued ones on the active-jobs index, the ones
  // started since on the start index), rather than one count with an OR: with the OR, the plan
  // PostgreSQL keeps for a prepared statement read the whole table.
  const ahead = `,
            (SELECT count(*) FROM quantum_jobs WHERE backend = b AND status = 'queued' AND queue_seq < $2)
          + (SELECT count(*) FROM quantum_jobs WHERE backend = b AND started_at > $3 AND status <> 'queued' AND queue_seq < $2) AS ahead`;
  // One backend as a plain parameter, not a one-element array to unnest: the plan kept for
  // the prepared statement then counts on one backend, not on unnest's guess of ten.
  const [row] = await db.query<QueueRow & { ahead: number | string }>(queueStatsSql(ahead, '(VALUES ($1::text)) AS v(b)'), [job.backend, job.queueSeq, job.createdAt]);
  return { stats: statsOf(row!, o.parallel), place: Number(row?.ahead ?? 0) + 1 };
}

interface QueueRow {
  backend: string;
  queued: number | string;
  running: number | string;
  wait: number | string | null;
  run: number | string | null;
}

function queueStatsSql(extraColumns: string, backends = 'unnest($1::text[]) AS b'): string {
  // One statement: the live queue from the active-jobs index, and the last 50 starts of each
  // backend from its start index (their waits, and the run time of those that ended).
  return `SELECT b AS backend,
            (SELECT count(*) FROM quantum_jobs WHERE backend = b AND status = 'queued') AS queued,
            (SELECT count(*) FROM quantum_jobs WHERE backend = b AND status IN ${IN_WORK}) AS running,
            s.wait, s.run${extraColumns}
       FROM ${backends},
       LATERAL (SELECT avg(EXTRACT(EPOCH FROM (started_at - created_at))) AS wait,
                       avg(EXTRACT(EPOCH FROM (finished_at - started_at))) AS run
                  FROM (SELECT created_at, started_at, finished_at FROM quantum_jobs
                         WHERE backend = b AND started_at IS NOT NULL ORDER BY started_at DESC LIMIT 50) last) s`;
}

function statsOf(r: QueueRow, parallel: (backend: string) => number): QueueStats {
  const queued = Number(r.queued ?? 0);
  const running = Number(r.running ?? 0);
  const waitS = Number(r.wait ?? 0);
  const runS = Number(r.run ?? 0);
  const lanes = Math.max(1, parallel(r.backend));
  return {
    backend: r.backend,
    queue_length: queued,
    running,
    average_wait_minutes: Math.round((waitS / 60) * 1e4) / 1e4,
    average_run_minutes: Math.round((runS / 60) * 1e4) / 1e4,
    estimated_wait: Math.ceil(((queued + running) * runS) / lanes),
  };
}

export interface UsageFigures {
  quantum_minutes: number;
  simulation_minutes: number;
  /** Minutes held by jobs not finished yet. */
  quantum_minutes_held: number;
  simulation_minutes_held: number;
  credits: number;
  jobs: number;
}

/** What an account used of a service from `from` to `to`, measured from the job rows. */
export async function usageFigures(db: Sql, o: { service: string; accountId: string; from: Date; to: Date }): Promise<UsageFigures> {
  const [row] = await db.query<Record<string, string | number | null>>(
    `SELECT sum(charged_minutes) FILTER (WHERE minutes_kind = 'quantum') AS qm,
            sum(charged_minutes) FILTER (WHERE minutes_kind = 'simulation') AS sm,
            sum(hold_minutes) FILTER (WHERE minutes_kind = 'quantum' AND status IN ${ACTIVE_SQL}) AS qh,
            sum(hold_minutes) FILTER (WHERE minutes_kind = 'simulation' AND status IN ${ACTIVE_SQL}) AS sh,
            sum(credits) AS credits, count(*) AS jobs
       FROM quantum_jobs WHERE service = $1 AND account_id = $2 AND created_at >= $3 AND created_at < $4`,
    [o.service, o.accountId, o.from, o.to],
  );
  const n = (k: string) => Number(row?.[k] ?? 0);
  return {
    quantum_minutes: n('qm'),
    simulation_minutes: n('sm'),
    quantum_minutes_held: n('qh'),
    simulation_minutes_held: n('sh'),
    credits: n('credits'),
    jobs: n('jobs'),
  };
}
