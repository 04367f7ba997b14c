/** Schema of the identity tables every service shares: accounts, plans per service, keys, credits, console users. */
import type { Migration } from '../storage/migrate.ts';

export const identityMigrations: Migration[] = [
  {
    id: 'identity/0001_init',
    sql: `
CREATE TABLE accounts (
  id text PRIMARY KEY,
  -- Variant B exposes accounts by integer id; every account gets one from this sequence.
  number bigserial UNIQUE NOT NULL,
  email text NOT NULL,
  name text,
  company_name text,
  email_verified boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE UNIQUE INDEX accounts_email_lower ON accounts (lower(email));
--;
CREATE TABLE account_plans (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  service text NOT NULL,
  plan text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, service)
);
--;
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  service text NOT NULL,
  kind text NOT NULL DEFAULT 'api_key',
  prefix text NOT NULL,
  -- SHA-256 of the whole key: keys are 190-bit random, so a fast hash is enough and the
  -- plaintext never touches the disk.
  key_hash text NOT NULL UNIQUE,
  last4 text NOT NULL,
  name text,
  role text NOT NULL DEFAULT 'member',
  scopes text[] NOT NULL DEFAULT '{}',
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
--;
CREATE INDEX api_keys_account ON api_keys (account_id, service);
--;
CREATE TABLE credit_ledger (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- Micro-dollars, so that sums are exact.
  amount_micros bigint NOT NULL,
  reason text NOT NULL,
  reference text,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX credit_ledger_account ON credit_ledger (account_id);
--;
CREATE TABLE console_users (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  email text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE UNIQUE INDEX console_users_email_lower ON console_users (lower(email));
--;
CREATE TABLE usage_counters (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  service text NOT NULL,
  counter text NOT NULL,
  period text NOT NULL,
  value bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, service, counter, period)
);
`,
  },
];
