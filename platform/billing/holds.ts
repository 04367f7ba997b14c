/**
 * Holds: money set aside for work before it runs, then settled to what the work really cost.
 *
 * Invariants:
 *  - placing a hold takes the amount from the account's available balance with one
 *    conditional UPDATE (`WHERE available_micros >= amount`): under READ COMMITTED a second
 *    concurrent UPDATE waits for the row lock and re-checks the condition on the new row, so
 *    holds can never overshoot the balance, whatever the concurrency, on any number of
 *    processes. A hold with a `limit` (an API key's spend limit) first counts against that
 *    scope the same way, in the same transaction, always scope then balance (one lock order);
 *  - closing a hold is one statement guarded by `status = 'open'`: settling twice, or a
 *    settle racing a repair, closes it once. A settle writes a `release` row giving the whole
 *    hold back and a `charge` row taking what was used, so charge rows sum to what was spent
 *    and hold/release rows cancel out once every hold is closed;
 *  - a charge never exceeds its hold: the caller holds the worst case.
 */
import type { Database, Sql } from '../storage/database.ts';
import { newId } from '../identity/ids.ts';
import { BillingError } from './money.ts';

export interface HoldRequest {
  accountId: string;
  /** The service the work belongs to (`llm-gateway`, `platform`, ...). */
  service: string;
  /** The request or job the hold pays for. */
  reference: string;
  /** The worst case, in micro-dollars (> 0). */
  micros: number;
  /** Who does the work (a process or worker name); shown to repair. */
  owner: string;
  /** After this time an open hold counts as abandoned unless its service's repair says otherwise. */
  expiresAt: Date;
  /** A second budget the hold must also fit in, e.g. `{scope: 'key:<id>', maxMicros}`. */
  limit?: { scope: string; maxMicros: number } | null;
  /** The hold's id, when the caller must name it before placing it (default: a new `hold_...`). */
  id?: string;
}

export interface Hold {
  id: string;
  accountId: string;
  service: string;
  reference: string;
  amountMicros: number;
  limitScope: string | null;
  owner: string;
  expiresAt: Date;
  createdAt: Date;
}

export interface Closed {
  holdId: string;
  status: 'settled' | 'released';
  chargedMicros: number;
  /** The account's available balance after the close. */
  availableMicros: number;
}

const PLACE = `
WITH bal AS (
  UPDATE billing_balances SET available_micros = available_micros - $5, updated_at = now()
   WHERE account_id = $2 AND available_micros >= $5
   RETURNING account_id
), hold AS (
  INSERT INTO billing_holds (id, account_id, service, reference, amount_micros, limit_scope, owner, expires_at)
  SELECT $1, account_id, $3, $4, $5, $6, $7, $8 FROM bal
  RETURNING id, account_id, service, reference, amount_micros, limit_scope, owner, expires_at, created_at
), led AS (
  INSERT INTO billing_ledger (account_id, kind, amount_micros, service, reference, hold_id)
  SELECT account_id, 'hold', -amount_micros, service, reference, id FROM hold
)
SELECT id, account_id, service, reference, amount_micros, limit_scope, owner, expires_at, created_at FROM hold`;

const COUNT_AGAINST_LIMIT = `
INSERT INTO billing_spend (scope, used_micros) SELECT $1::text, $2::bigint WHERE $2::bigint <= $3::bigint
ON CONFLICT (scope) DO UPDATE SET used_micros = billing_spend.used_micros + EXCLUDED.used_micros
 WHERE billing_spend.used_micros + EXCLUDED.used_micros <= $3::bigint
RETURNING used_micros`;

interface HoldRow {
  id: string;
  account_id: string;
  service: string;
  reference: string;
  amount_micros: number | string;
  limit_scope: string | null;
  owner: string;
  expires_at: Date;
  created_at: Date;
}

function toHold(r: HoldRow): Hold {
  return {
    id: r.id,
    accountId: r.account_id,
    service: r.service,
    reference: r.reference,
    amountMicros: Number(r.amount_micros),
    limitScope: r.limit_scope,
    owner: r.owner,
    expiresAt: new Date(r.expires_at),
    createdAt: new Date(r.created_at),
  };
}

/**
 * Places a hold, or throws BillingError `insufficient_credits` (the balance does not cover
 * it) or `limit_reached` (the limit scope does not). Nothing is written when it throws.
 * `db` may be a caller's transaction (`Sql`): the hold then commits or rolls back with it.
 */
export async function placeHold(db: Database | Sql, req: HoldRequest): Promise<Hold> {
  if (!Number.isSafeInteger(req.micros) || req.micros <= 0) {
    throw new BillingError('invalid_amount', `a hold must be a positive whole number of micro-dollars; got ${req.micros}`);
  }
  const params = [req.id ?? newId('hold'), req.accountId, req.service, req.reference, req.micros, req.limit?.scope ?? null, req.owner, req.expiresAt];
  if (!req.limit) {
    const [row] = await db.query<HoldRow>(PLACE, params);
    if (!row) throw new BillingError('insufficient_credits', 'Insufficient credits');
    return toHold(row);
  }
  const limit = req.limit;
  // Given a transaction's handle (no `transaction` of its own), the two statements join it.
  const inTransaction = <T>(fn: (tx: Sql) => Promise<T>): Promise<T> => ('transaction' in db ? db.transaction(fn) : fn(db));
  return inTransaction(async (tx) => {
    const counted = await tx.query(COUNT_AGAINST_LIMIT, [limit.scope, req.micros, limit.maxMicros]);
    if (counted.length === 0) throw new BillingError('limit_reached', `The limit of ${limit.scope} is reached`);
    const [row] = await tx.query<HoldRow>(PLACE, params);
    // Throwing rolls the limit's count back with the transaction.
    if (!row) throw new BillingError('insufficient_credits', 'Insufficient credits');
    return toHold(row);
  });
}

const CLOSE = `
WITH h AS (
  UPDATE billing_holds SET status = $2, charged_micros = LEAST($3::bigint, amount_micros), closed_at = now()
   WHERE id = $1 AND status = 'open'
   RETURNING id, account_id, service, reference, amount_micros, charged_micros, limit_scope
), bal AS (
  UPDATE billing_balances b SET available_micros = b.available_micros + h.amount_micros - h.charged_micros, updated_at = now()
    FROM h WHERE b.account_id = h.account_id
  RETURNING b.available_micros
), spend AS (
  UPDATE billing_spend s SET used_micros = s.used_micros - (h.amount_micros - h.charged_micros)
    FROM h WHERE s.scope = h.limit_scope
), led AS (
  INSERT INTO billing_ledger (account_id, kind, amount_micros, service, reference, hold_id)
  SELECT account_id, 'release', amount_micros, service, reference, id FROM h
  UNION ALL
  SELECT account_id, 'charge', -charged_micros, service, reference, id FROM h WHERE charged_micros > 0
)
SELECT h.id, h.charged_micros, bal.available_micros FROM h, bal`;

async function close(db: Sql, holdId: string, status: 'settled' | 'released', micros: number): Promise<Closed | null> {
  if (!Number.isSafeInteger(micros) || micros < 0) {
    throw new BillingError('invalid_amount', `a charge must be a whole number of micro-dollars >= 0; got ${micros}`);
  }
  const [row] = await db.query<{ id: string; charged_micros: number | string; available_micros: number | string }>(CLOSE, [holdId, status, micros]);
  if (!row) return null;
  return { holdId: row.id, status, chargedMicros: Number(row.charged_micros), availableMicros: Number(row.available_micros) };
}

/**
 * Charges what the work used (capped at the hold) and gives the rest back, in one statement.
 * Returns null when the hold is not open (already settled or released): nothing changes.
 */
export function settleHold(db: Sql, holdId: string, usedMicros: number): Promise<Closed | null> {
  return close(db, holdId, 'settled', Math.max(0, Math.ceil(usedMicros)));
}

/** Gives the whole hold back (the work did not run or was refused); null when not open. */
export function releaseHold(db: Sql, holdId: string): Promise<Closed | null> {
  return close(db, holdId, 'released', 0);
}

/** Moves an open hold's expiry (long work that is still alive); false when not open. */
export async function extendHold(db: Sql, holdId: string, expiresAt: Date): Promise<boolean> {
  const rows = await db.query("UPDATE billing_holds SET expires_at = $2 WHERE id = $1 AND status = 'open' RETURNING id", [holdId, expiresAt]);
  return rows.length > 0;
}

export async function getHold(db: Sql, holdId: string): Promise<(Hold & { status: string; chargedMicros: number | null }) | null> {
  const [row] = await db.query<HoldRow & { status: string; charged_micros: number | string | null }>(
    'SELECT id, account_id, service, reference, amount_micros, limit_scope, owner, expires_at, created_at, status, charged_micros FROM billing_holds WHERE id = $1',
    [holdId],
  );
  if (!row) return null;
  return { ...toHold(row), status: row.status, chargedMicros: row.charged_micros === null ? null : Number(row.charged_micros) };
}

/** What repair does with one open hold: charge what the finished work used, give it all back, or leave it. */
export type Resolution = { settle: number } | { release: true } | null;

/** Money counted against a limit scope: charges plus open holds. */
export async function spentInScope(db: Sql, scope: string): Promise<number> {
  const [row] = await db.query<{ used_micros: number | string }>('SELECT used_micros FROM billing_spend WHERE scope = $1', [scope]);
  return Number(row?.used_micros ?? 0);
}

/**
 * Closes the open holds of `service` whose work is finished or dead, at start and from time
 * to time. `resolve` is asked about every open hold (the service knows whether its job ended
 * and what it used); without it, or when it answers null for a hold past its expiry, an
 * expired hold is released (the work is dead and charges nothing) and a live one is left.
 */
export async function repairHolds(
  db: Sql,
  options: { service: string; now?: Date; resolve?: (hold: Hold, expired: boolean) => Promise<Resolution> | Resolution },
): Promise<{ settled: number; released: number; kept: number }> {
  const now = options.now ?? new Date();
  const rows = await db.query<HoldRow>(
    `SELECT id, account_id, service, reference, amount_micros, limit_scope, owner, expires_at, created_at
       FROM billing_holds WHERE service = $1 AND status = 'open' ${options.resolve ? '' : 'AND expires_at <= $2'}
      ORDER BY created_at`,
    options.resolve ? [options.service] : [options.service, now],
  );
  const out = { settled: 0, released: 0, kept: 0 };
  for (const row of rows) {
    const hold = toHold(row);
    const expired = hold.expiresAt.getTime() <= now.getTime();
    const answer = options.resolve ? await options.resolve(hold, expired) : null;
    if (answer && 'settle' in answer) {
      if (await settleHold(db, hold.id, answer.settle)) out.settled++;
    } else if (answer || expired) {
      if (await releaseHold(db, hold.id)) out.released++;
    } else out.kept++;
  }
  return out;
}
