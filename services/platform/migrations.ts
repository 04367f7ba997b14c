/**
 * Schema of the platform execution service (interface 5): one row per platform job, and the
 * per-IP request counters of the rate limit. Money lives in the shared ledger
 * (`billing_holds`, `billing_ledger`): a job names its hold, the hold names the job.
 */
import type { Migration } from '../../platform/storage/migrate.ts';

export const platformMigrations: Migration[] = [
  {
    id: 'platform/0001_jobs',
    sql: `
CREATE TABLE platform_jobs (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  key_id text,
  -- The client's Idempotency-Key and the SHA-256 of the canonical request body it came with.
  idempotency_key text,
  request_hash text NOT NULL,
  type text NOT NULL,
  -- QUEUED, RUNNING, CANCEL_REQUESTED, then one of SETTLED, CANCELLED, FAILED.
  status text NOT NULL,
  billing_mode text NOT NULL,
  plan text NOT NULL,
  -- The workload as accepted (defaults filled in), and the price basis it was held at.
  workload jsonb NOT NULL,
  backend text,
  price jsonb NOT NULL,
  hold_id text,
  held_micros bigint NOT NULL DEFAULT 0,
  charged_micros bigint,
  -- The body of the first answer (201), replayed as is for a retry with the same key and body.
  first_response text NOT NULL,
  -- Compute jobs: the process running it and how long its claim holds without a heartbeat.
  owner text,
  lease_until timestamptz,
  usage_metrics jsonb,
  result jsonb,
  result_hash text,
  evidence_hash text,
  evidence_bundle_id text,
  error jsonb,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz,
  settled_at timestamptz,
  cancel_requested_at timestamptz,
  updated_at timestamptz NOT NULL
);
--;
CREATE UNIQUE INDEX platform_jobs_idempotency ON platform_jobs (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
--;
CREATE INDEX platform_jobs_open ON platform_jobs (type, status, created_at) WHERE status IN ('QUEUED', 'RUNNING', 'CANCEL_REQUESTED');
--;
CREATE INDEX platform_jobs_account ON platform_jobs (account_id, created_at);
--;
-- Fixed one-minute windows per client address, shared by every process on the store.
CREATE TABLE platform_rate_counters (
  ip text NOT NULL,
  window_start text NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (ip, window_start)
);
`,
  },
];
