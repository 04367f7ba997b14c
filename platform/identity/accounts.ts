/** Accounts, their plan per service, and prepaid credits. */
import { ApiError } from '../http/errors.ts';
import type { Sql } from '../storage/database.ts';
import { newId } from './ids.ts';
import { notify } from '../storage/channels.ts';

export interface Account {
  id: string;
  number: number;
  email: string;
  name: string | null;
  company_name: string | null;
  email_verified: boolean;
  created_at: Date;
}

export interface NewAccount {
  email: string;
  name?: string | null;
  companyName?: string | null;
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}

export async function createAccount(db: Sql, input: NewAccount): Promise<Account> {
  try {
    const [row] = await db.query<Account>(
      `INSERT INTO accounts (id, email, name, company_name) VALUES ($1, $2, $3, $4)
       RETURNING id, number, email, name, company_name, email_verified, created_at`,
      [newId('acc'), input.email, input.name ?? null, input.companyName ?? null],
    );
    return row!;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(409, 'email_taken', `An account with email ${input.email} already exists`);
    throw err;
  }
}

export async function getAccount(db: Sql, id: string): Promise<Account | null> {
  const [row] = await db.query<Account>(
    'SELECT id, number, email, name, company_name, email_verified, created_at FROM accounts WHERE id = $1',
    [id],
  );
  return row ?? null;
}

export async function setPlan(db: Sql, accountId: string, service: string, plan: string): Promise<void> {
  await db.query(
    `INSERT INTO account_plans (account_id, service, plan) VALUES ($1, $2, $3)
     ON CONFLICT (account_id, service) DO UPDATE SET plan = EXCLUDED.plan, updated_at = now()`,
    [accountId, service, plan],
  );
  // Cached key lookups carry the plan: drop them (see key-cache.ts).
  await notify(db, 'lattice_api_keys', accountId);
}

export async function getPlan(db: Sql, accountId: string, service: string): Promise<string | null> {
  const [row] = await db.query<{ plan: string }>(
    'SELECT plan FROM account_plans WHERE account_id = $1 AND service = $2',
    [accountId, service],
  );
  return row?.plan ?? null;
}

/** Adds (or with a negative amount, takes) credit; returns the new balance in dollars. */
export async function addCredits(db: Sql, accountId: string, usd: number, reason = 'operator_grant'): Promise<number> {
  if (!Number.isFinite(usd)) throw new ApiError(400, 'invalid_amount', 'Amount must be a finite number');
  await db.query('INSERT INTO credit_ledger (account_id, amount_micros, reason) VALUES ($1, $2, $3)', [
    accountId,
    Math.round(usd * 1e6),
    reason,
  ]);
  return creditBalance(db, accountId);
}

export async function creditBalance(db: Sql, accountId: string): Promise<number> {
  const [row] = await db.query<{ micros: string | number | null }>(
    'SELECT COALESCE(SUM(amount_micros), 0)::text AS micros FROM credit_ledger WHERE account_id = $1',
    [accountId],
  );
  return Number(row?.micros ?? 0) / 1e6;
}
