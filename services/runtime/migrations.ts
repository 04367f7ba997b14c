/**
 * The runtime's own table: what a runtime job is before and around its run on the shared job
 * system (the approval, the estimate and the hold). Once approved, the job also is a row of
 * `quantum_jobs` with the same id, which holds its run state and result.
 */
import type { Migration } from '../../platform/storage/migrate.ts';

export const runtimeMigrations: Migration[] = [
  {
    id: 'runtime/0001_jobs',
    sql: `
CREATE TABLE runtime_jobs (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id text,
  backend_id text NOT NULL,
  qasm text NOT NULL,
  shots integer NOT NULL CHECK (shots > 0),
  -- 'sync': estimated before the answer; 'async': estimated after it (fire-and-forget).
  mode text NOT NULL CHECK (mode IN ('sync', 'async')),
  -- validating -> awaiting_approval -> submitted (then the quantum job's status rules)
  -- validating -> submitted (a free simulator job); any of the first three -> cancelled | failed
  phase text NOT NULL CHECK (phase IN ('validating', 'awaiting_approval', 'submitted', 'cancelled', 'failed')),
  approval_required boolean NOT NULL,
  -- SHA-256 of the approval token; the token itself is shown once, in the submit answer.
  approval_token_hash text,
  estimated_micros bigint,
  cost_basis jsonb,
  prepared jsonb,
  hold_id text,
  charged_micros bigint,
  error jsonb,
  approved_at timestamptz,
  approved_by text,
  finished_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
--;
CREATE INDEX runtime_jobs_account ON runtime_jobs (account_id, created_at DESC);
--;
CREATE INDEX runtime_jobs_open ON runtime_jobs (phase) WHERE phase IN ('validating', 'submitted');
`,
  },
];
