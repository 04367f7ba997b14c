/**
 * The suppliers service's tables. A supplier job is a row here whatever runs it: an emulated
 * job also has a row of the shared quantum job system (`quantum_job_id`), a remote one the
 * supplier's id (`remote_id`). The public id is unique per account and supplier only, so a
 * caller-chosen legacy id never collides with, or reveals, another account's job.
 */
import type { Migration } from '../../platform/storage/migrate.ts';

export const supplierMigrations: Migration[] = [
  {
    id: 'suppliers/0001_init',
    sql: `
CREATE TABLE supplier_jobs (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id text,
  supplier text NOT NULL,
  public_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('emulated', 'remote')),
  provider text NOT NULL,
  target text NOT NULL,
  backend text NOT NULL,
  quantum_job_id text,
  remote_id text,
  remote_status text,
  shots integer NOT NULL,
  num_qubits integer NOT NULL,
  qasm text NOT NULL,
  circuit_hash text NOT NULL,
  cost_model text NOT NULL,
  estimated_micros bigint NOT NULL,
  charged_micros bigint,
  hold_id text,
  batch_id text,
  storage_bucket text,
  storage_prefix text,
  result_location text,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  result jsonb,
  error jsonb,
  result_hash text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  UNIQUE (account_id, supplier, public_id)
);
--;
CREATE INDEX supplier_jobs_account ON supplier_jobs (account_id, created_at DESC);
--;
CREATE INDEX supplier_jobs_active_remote ON supplier_jobs (updated_at) WHERE mode = 'remote' AND status IN ('queued', 'running');
--;
CREATE INDEX supplier_jobs_quantum ON supplier_jobs (quantum_job_id) WHERE quantum_job_id IS NOT NULL;
--;
CREATE TABLE supplier_batches (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  supplier text NOT NULL,
  target text NOT NULL,
  job_count integer NOT NULL,
  created_at timestamptz NOT NULL,
  completed_at timestamptz
);
--;
-- Each job's provenance as a hash chain: hash = sha3-256(prev_hash || canonical JSON of the record).
CREATE TABLE supplier_provenance (
  job_row_id text NOT NULL REFERENCES supplier_jobs(id) ON DELETE CASCADE,
  seq integer NOT NULL,
  event text NOT NULL,
  payload jsonb NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (job_row_id, seq)
);
`,
  },
  {
    // The local object store of emulated supplier C tasks (objects.ts): one row per object, per
    // account and bucket, the document kept as the bytes served.
    id: 'suppliers/0002_objects',
    sql: `
CREATE TABLE supplier_objects (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  bucket text NOT NULL,
  key text NOT NULL,
  content_type text NOT NULL,
  body text NOT NULL,
  sha3 text NOT NULL,
  size integer NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, bucket, key)
);
`,
  },
  {
    // A cancel asked for on the job's row by another service (the quantum jobs page of qcos,
    // which has no connection to the suppliers): cancel-requests.ts answers it from the leader
    // loop, and a refusal (the job started meanwhile) is kept beside it.
    id: 'suppliers/0003_cancel_requests',
    sql: `
ALTER TABLE supplier_jobs ADD COLUMN cancel_requested_at timestamptz, ADD COLUMN cancel_refused text;
--;
CREATE INDEX supplier_jobs_cancel_requested ON supplier_jobs (cancel_requested_at) WHERE cancel_requested_at IS NOT NULL AND status IN ('queued', 'running');
`,
  },
  {
    // Requests per minute moved to platform/limits' windows (pruned there): the per-key minute
    // counters, never pruned here, go.
    id: 'suppliers/0004_request_windows',
    sql: `DELETE FROM usage_counters WHERE service = 'suppliers' AND counter LIKE 'requests_minute:%'`,
  },
];
