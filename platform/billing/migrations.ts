/** Schema of the credits ledger: balances, ledger rows, holds and per-scope spend (e.g. per API key). */
import type { Migration } from '../storage/migrate.ts';

export const billingMigrations: Migration[] = [
  {
    id: 'billing/0001_ledger',
    sql: `
-- The available balance of each account in micro-dollars: the sum of its ledger rows, kept in
-- one row so that a hold is one conditional UPDATE (PostgreSQL re-checks the WHERE on the
-- locked row version under READ COMMITTED, so concurrent holds can never take it below zero).
CREATE TABLE billing_balances (
  account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  available_micros bigint NOT NULL DEFAULT 0 CHECK (available_micros >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE TABLE billing_holds (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  service text NOT NULL,
  reference text NOT NULL,
  amount_micros bigint NOT NULL CHECK (amount_micros > 0),
  -- A second budget the hold also counts against (e.g. an API key's spend limit), or null.
  limit_scope text,
  -- Who does the work the hold pays for, and until when it may stay open without repair.
  owner text NOT NULL,
  expires_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'settled', 'released')),
  charged_micros bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz
);
--;
CREATE INDEX billing_holds_open ON billing_holds (service, expires_at) WHERE status = 'open';
--;
CREATE INDEX billing_holds_account ON billing_holds (account_id);
--;
CREATE TABLE billing_ledger (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('topup', 'hold', 'charge', 'release')),
  -- The row's effect on the available balance: top-up and release positive, hold and charge negative.
  amount_micros bigint NOT NULL,
  service text NOT NULL,
  reference text,
  hold_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX billing_ledger_account ON billing_ledger (account_id, id);
--;
-- Money charged plus money held against a scope with its own limit (an API key's spendLimit).
CREATE TABLE billing_spend (
  scope text PRIMARY KEY,
  used_micros bigint NOT NULL DEFAULT 0 CHECK (used_micros >= 0)
);
--;
-- Prepaid credit kept before the ledger existed (identity's credit_ledger, a plain sum of
-- rows) carries over as one top-up per account.
INSERT INTO billing_balances (account_id, available_micros)
SELECT account_id, SUM(amount_micros) FROM credit_ledger GROUP BY account_id HAVING SUM(amount_micros) > 0;
--;
INSERT INTO billing_ledger (account_id, kind, amount_micros, service, reference)
SELECT account_id, 'topup', available_micros, 'operator', 'carried over from credit_ledger' FROM billing_balances;
`,
  },
];
