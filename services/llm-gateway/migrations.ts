/** Tables of the gateway: per-key limits, usage per key, model and day, console sessions. */
import type { Migration } from '../../platform/storage/migrate.ts';

export const gatewayMigrations: Migration[] = [
  {
    id: 'llm-gateway/0001_init',
    sql: `
CREATE TABLE llm_gateway_key_limits (
  key_id text PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  spend_limit_micros bigint CHECK (spend_limit_micros >= 0),
  rpm_limit integer CHECK (rpm_limit >= 0),
  tpm_limit integer CHECK (tpm_limit >= 0)
);
--;
CREATE TABLE llm_gateway_usage (
  key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  model text NOT NULL,
  day date NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  prompt_tokens bigint NOT NULL DEFAULT 0,
  completion_tokens bigint NOT NULL DEFAULT 0,
  cost_micros bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, model, day)
);
--;
CREATE INDEX llm_gateway_usage_account ON llm_gateway_usage (account_id, day);
--;
-- Per-minute request and token counters of keys with rpm or tpm limits (fixed UTC minutes).
CREATE TABLE llm_gateway_minute (
  key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  minute timestamptz NOT NULL,
  requests integer NOT NULL DEFAULT 0,
  tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, minute)
);
--;
CREATE TABLE llm_gateway_sessions (
  -- SHA-256 of the cookie's secret: a copy of the table does not sign anybody in.
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES console_users(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
`,
  },
];
