/** Top-ups, balances and the ledger's rows of one account. */
import type { Sql } from '../storage/database.ts';
import { BillingError } from './money.ts';

export interface Balance {
  accountId: string;
  /** What the account may still spend: top-ups minus charges minus open holds. */
  availableMicros: number;
  /** Sum of the account's open holds. */
  heldMicros: number;
}

export type LedgerKind = 'topup' | 'hold' | 'charge' | 'release';

export interface LedgerEntry {
  id: number;
  kind: LedgerKind;
  amountMicros: number;
  service: string;
  reference: string | null;
  holdId: string | null;
  createdAt: Date;
}

/**
 * Adds `micros` to the account's balance (a `topup` row) in one statement; returns the new
 * available balance. Refuses zero, negative and non-integer amounts.
 */
export async function topUp(
  db: Sql,
  input: { accountId: string; micros: number; service?: string; reference?: string | null },
): Promise<number> {
  if (!Number.isSafeInteger(input.micros) || input.micros <= 0) {
    throw new BillingError('invalid_amount', `a top-up must be a positive whole number of micro-dollars; got ${input.micros}`);
  }
  const [row] = await db.query<{ available_micros: number | string }>(
    `WITH bal AS (
       INSERT INTO billing_balances (account_id, available_micros) VALUES ($1, $2)
       ON CONFLICT (account_id) DO UPDATE
         SET available_micros = billing_balances.available_micros + EXCLUDED.available_micros, updated_at = now()
       RETURNING account_id, available_micros
     ), led AS (
       INSERT INTO billing_ledger (account_id, kind, amount_micros, service, reference)
       SELECT account_id, 'topup', $2, $3, $4 FROM bal
     )
     SELECT available_micros FROM bal`,
    [input.accountId, input.micros, input.service ?? 'operator', input.reference ?? null],
  );
  return Number(row!.available_micros);
}

export async function getBalance(db: Sql, accountId: string): Promise<Balance> {
  const [row] = await db.query<{ available: number | string | null; held: number | string | null }>(
    `SELECT (SELECT available_micros FROM billing_balances WHERE account_id = $1) AS available,
            (SELECT COALESCE(SUM(amount_micros), 0) FROM billing_holds WHERE account_id = $1 AND status = 'open') AS held`,
    [accountId],
  );
  return { accountId, availableMicros: Number(row?.available ?? 0), heldMicros: Number(row?.held ?? 0) };
}

/** Only the available balance: one primary-key read, for checks on every request. */
export async function availableMicros(db: Sql, accountId: string): Promise<number> {
  const [row] = await db.query<{ available_micros: number | string }>(
    'SELECT available_micros FROM billing_balances WHERE account_id = $1',
    [accountId],
  );
  return Number(row?.available_micros ?? 0);
}

/** The account's ledger, newest first. */
export async function ledgerEntries(db: Sql, accountId: string, options: { limit?: number; service?: string } = {}): Promise<LedgerEntry[]> {
  const rows = await db.query<{
    id: number | string;
    kind: LedgerKind;
    amount_micros: number | string;
    service: string;
    reference: string | null;
    hold_id: string | null;
    created_at: Date;
  }>(
    `SELECT id, kind, amount_micros, service, reference, hold_id, created_at FROM billing_ledger
      WHERE account_id = $1 AND ($2::text IS NULL OR service = $2)
      ORDER BY id DESC LIMIT $3`,
    [accountId, options.service ?? null, options.limit ?? 100],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    amountMicros: Number(r.amount_micros),
    service: r.service,
    reference: r.reference,
    holdId: r.hold_id,
    createdAt: new Date(r.created_at),
  }));
}

/** Sum of the account's ledger rows: equals the available balance while the books are consistent. */
export async function ledgerSum(db: Sql, accountId: string): Promise<number> {
  const [row] = await db.query<{ s: number | string }>(
    'SELECT COALESCE(SUM(amount_micros), 0) AS s FROM billing_ledger WHERE account_id = $1',
    [accountId],
  );
  return Number(row?.s ?? 0);
}
