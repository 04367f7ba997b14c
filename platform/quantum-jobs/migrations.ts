/** Schema of the shared quantum job system: one row per job of every quantum service. */
import type { Migration } from '../storage/migrate.ts';

export const quantumJobMigrations: Migration[] = [
  {
    id: 'quantum-jobs/0001_init',
    sql: `
CREATE SEQUENCE quantum_job_queue_seq;
--;
CREATE TABLE quantum_jobs (
  id text PRIMARY KEY,
  service text NOT NULL,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id text,
  -- 'run' (validate, optimize, execute), 'optimize' (no execution), 'simulate' (execute as given)
  kind text NOT NULL,
  backend text NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'validating', 'optimizing', 'running', 'completed', 'failed', 'cancelled')),
  input jsonb NOT NULL,
  -- Small results inline; results whose JSON passes the threshold are gzip-compressed in result_gz.
  result jsonb,
  result_gz bytea,
  error jsonb,
  batch_id text,
  -- FIFO order within the backend's queue (and the order of the simulator pool).
  queue_seq bigint NOT NULL DEFAULT nextval('quantum_job_queue_seq'),
  attempts integer NOT NULL DEFAULT 0,
  -- The process holding the job and until when its claim is good; heartbeats extend it.
  owner text,
  lease_until timestamptz,
  -- Minutes are exact decimals so that charged + refunded = reserved holds to the last digit.
  -- Minutes: 'quantum' (emulated devices) or 'simulation' (simulators) or null (optimize jobs).
  minutes_kind text,
  hold_minutes numeric NOT NULL DEFAULT 0,
  reserved_minutes numeric NOT NULL DEFAULT 0,
  charged_minutes numeric NOT NULL DEFAULT 0,
  refunded_minutes numeric NOT NULL DEFAULT 0,
  credits integer NOT NULL DEFAULT 0,
  execution_ms double precision,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  run_started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz NOT NULL
);
--;
CREATE INDEX quantum_jobs_account ON quantum_jobs (service, account_id, created_at DESC);
--;
CREATE INDEX quantum_jobs_active ON quantum_jobs (backend, queue_seq) WHERE status IN ('queued', 'validating', 'optimizing', 'running');
--;
CREATE INDEX quantum_jobs_batch ON quantum_jobs (batch_id) WHERE batch_id IS NOT NULL;
`,
  },
  {
    // The claim and the queue figures read indexes, whatever the jobs table holds (few indexes:
    // on the embedded store each one adds to the planning of every statement on the table).
    id: 'quantum-jobs/0002_hot_path_indexes',
    sql: `
CREATE INDEX quantum_jobs_queued ON quantum_jobs (queue_seq) WHERE status = 'queued';
--;
CREATE INDEX quantum_jobs_backend_started ON quantum_jobs (backend, started_at DESC) WHERE started_at IS NOT NULL;
`,
  },
  {
    // A submission counts the account's unfinished jobs (its concurrent-jobs quota) in the same
    // statement as its insert: without this index that count read every job the account ever
    // submitted through quantum_jobs_account (0.58 ms with 1,800 of them on the embedded
    // store, growing with each one); with it, only the unfinished ones.
    id: 'quantum-jobs/0003_account_active_index',
    sql: `
CREATE INDEX quantum_jobs_account_active ON quantum_jobs (service, account_id) WHERE status IN ('queued', 'validating', 'optimizing', 'running');
`,
  },
  {
    // What a submission counts against its account's quotas, under the account's advisory lock
    // (records.ts insertAndClaim). The lock is taken inside the function, and the count after
    // it: each statement of a volatile function reads what was committed when that statement
    // began, so a submission that waited for another one counts that one's job. On PostgreSQL
    // the lock, the checks and the insert are thus one statement and one round trip, where
    // they were four (BEGIN, the lock, the insert, COMMIT).
    id: 'quantum-jobs/0004_account_usage_function',
    sql: `
CREATE FUNCTION quantum_account_usage(p_lock integer, p_service text, p_account text, p_minutes_kind text, p_since timestamptz, p_sums boolean)
RETURNS TABLE (active_jobs bigint, used_minutes numeric, used_credits bigint)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock, hashtext(p_service || ':' || p_account));
  IF p_sums THEN
    RETURN QUERY
      SELECT count(*) FILTER (WHERE q.status IN ('queued', 'validating', 'optimizing', 'running')),
             COALESCE(sum(CASE WHEN q.minutes_kind = p_minutes_kind
                               THEN q.charged_minutes + CASE WHEN q.status IN ('queued', 'validating', 'optimizing', 'running') THEN q.hold_minutes ELSE 0 END END), 0),
             COALESCE(sum(q.credits) FILTER (WHERE q.created_at >= p_since), 0)::bigint
        FROM quantum_jobs q
       WHERE q.service = p_service AND q.account_id = p_account
         AND (q.status IN ('queued', 'validating', 'optimizing', 'running') OR q.created_at >= p_since);
  ELSE
    -- Only the unfinished jobs: the partial index quantum_jobs_account_active holds them.
    RETURN QUERY
      SELECT count(*), 0::numeric, 0::bigint
        FROM quantum_jobs q
       WHERE q.service = p_service AND q.account_id = p_account
         AND q.status IN ('queued', 'validating', 'optimizing', 'running');
  END IF;
END
$fn$;
`,
  },
  {
    // A job's input (its circuit text, and the optimized text found at submission) and its
    // compressed result are stored out of line without PostgreSQL's own compression: pglz
    // compressing the 44 KB input of a 20-qubit circuit of depth 20 took 0.7-1.3 ms of each
    // such submission's insert on the embedded store (1.5-2.1 ms against 0.7 ms), and gzip
    // bytes do not compress again. The price is disk: circuit text compresses about 3x, so a
    // large job's input takes about three times the room it did. Inputs under about 2 KB (a
    // Bell circuit's) stay in the row as before. New rows only; existing ones keep their form.
    id: 'quantum-jobs/0005_uncompressed_large_columns',
    sql: `
ALTER TABLE quantum_jobs ALTER COLUMN input SET STORAGE EXTERNAL, ALTER COLUMN result_gz SET STORAGE EXTERNAL;
`,
  },
];
