/** Schema of the language API (variant Q): tenants, completions, feedback, datasets, training, usage. */
import type { Migration } from '../../platform/storage/migrate.ts';

export const llmMigrations: Migration[] = [
  {
    id: 'llm/0001_init',
    sql: `
CREATE TABLE llm_tenants (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL,
  slug text NOT NULL,
  tier text NOT NULL,
  settings jsonb NOT NULL,
  -- The tenant's own key (api_keys.id); revoked when the tenant is deleted.
  key_id text NOT NULL,
  -- The adapter its chats use: the last completed training job.
  adapter_job_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE UNIQUE INDEX llm_tenants_slug ON llm_tenants (account_id, slug);
--;
CREATE UNIQUE INDEX llm_tenants_key ON llm_tenants (key_id);
--;
CREATE TABLE llm_completions (
  id text PRIMARY KEY,
  tenant_id text REFERENCES llm_tenants(id) ON DELETE CASCADE,
  account_id text NOT NULL,
  model text NOT NULL,
  prompt text NOT NULL,
  system text,
  reply text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE TABLE llm_feedback (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES llm_tenants(id) ON DELETE CASCADE,
  conversation_id text,
  message_id text,
  type text NOT NULL,
  rating integer,
  correction text,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX llm_feedback_tenant ON llm_feedback (tenant_id, created_at);
--;
CREATE TABLE llm_datasets (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES llm_tenants(id) ON DELETE CASCADE,
  name text NOT NULL,
  type text NOT NULL,
  description text,
  allow_rag boolean NOT NULL,
  allow_private_training boolean NOT NULL,
  documents integer NOT NULL DEFAULT 0,
  tables jsonb NOT NULL DEFAULT '[]',
  -- Raised by every upload, so that each process reopens its cached index.
  revision integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX llm_datasets_tenant ON llm_datasets (tenant_id, created_at);
--;
CREATE TABLE llm_dataset_docs (
  dataset_id text NOT NULL REFERENCES llm_datasets(id) ON DELETE CASCADE,
  doc_id text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (dataset_id, doc_id)
);
--;
CREATE TABLE llm_training_jobs (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES llm_tenants(id) ON DELETE CASCADE,
  status text NOT NULL,
  model text NOT NULL,
  params jsonb NOT NULL,
  -- The training set, fixed when the job is created.
  pairs jsonb NOT NULL,
  feedback_samples integer NOT NULL,
  progress double precision NOT NULL DEFAULT 0,
  current_epoch integer NOT NULL DEFAULT 0,
  total_epochs integer NOT NULL,
  loss double precision,
  learning_rate double precision,
  held_out_loss_before double precision,
  held_out_loss_after double precision,
  attempts integer NOT NULL DEFAULT 0,
  error text,
  adapter bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX llm_training_tenant ON llm_training_jobs (tenant_id, created_at);
--;
CREATE TABLE llm_usage_daily (
  subject text NOT NULL,
  day date NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (subject, day)
);
--;
CREATE TABLE llm_rate_windows (
  subject text NOT NULL,
  window_start timestamptz NOT NULL,
  requests integer NOT NULL,
  PRIMARY KEY (subject, window_start)
)`,
  },
  {
    // Leases on training jobs (training/lease.ts): the process training a job holds it until
    // lease_expires_at and renews it as it goes; the cluster's leader puts a job whose lease ran
    // out back on the queue (queue_job_id: its message there). event_pending: the job's
    // training.completed / training.failed event is yet to be handed to webhook delivery.
    id: 'llm/0002_training_leases',
    sql: `
ALTER TABLE llm_training_jobs ADD COLUMN lease_owner text
--;
ALTER TABLE llm_training_jobs ADD COLUMN lease_expires_at timestamptz
--;
ALTER TABLE llm_training_jobs ADD COLUMN queue_job_id text
--;
ALTER TABLE llm_training_jobs ADD COLUMN event_pending boolean NOT NULL DEFAULT false
--;
CREATE INDEX llm_training_open ON llm_training_jobs (status, lease_expires_at) WHERE status IN ('queued', 'running')
--;
CREATE INDEX llm_training_event_pending ON llm_training_jobs (finished_at) WHERE event_pending`,
  },
  {
    // Requests per minute and tokens per day moved to platform/limits' table (limits.ts),
    // pruned there. Today's tokens are carried over, so an upgrade does not reset the day.
    id: 'llm/0003_limits_in_platform_windows',
    sql: `DROP TABLE llm_rate_windows
--;
INSERT INTO limit_windows (subject, window_ms, window_start, taken, granted)
SELECT 'llm:' || subject || ':tokens', 86400000, (extract(epoch FROM day) * 1000)::bigint, tokens, 0
  FROM llm_usage_daily WHERE day = (now() AT TIME ZONE 'UTC')::date AND tokens > 0
ON CONFLICT (subject, window_ms, window_start) DO UPDATE SET taken = EXCLUDED.taken`,
  },
];
