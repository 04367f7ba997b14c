/** Schema of the evidence module: signing keys per service (rotatable) and the bundles they signed. */
import type { Migration } from '../storage/migrate.ts';

export const evidenceMigrations: Migration[] = [
  {
    id: 'evidence/0001_init',
    sql: `
CREATE TABLE evidence_signing_keys (
  key_id text PRIMARY KEY,
  -- The signing service: core, platform, runtime, nav (each publishes only its own keys).
  service text NOT NULL,
  algorithm text NOT NULL,
  public_key bytea NOT NULL,
  secret_key bytea NOT NULL,
  status text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);
--;
-- At most one active key per service and algorithm: rotation retires the old one, which
-- keeps verifying what it signed and stays published.
CREATE UNIQUE INDEX evidence_signing_keys_active
  ON evidence_signing_keys (service, algorithm) WHERE status = 'active';
--;
CREATE TABLE evidence_bundles (
  bundle_id text PRIMARY KEY,
  service text NOT NULL,
  kind text NOT NULL,
  account_id text,
  -- What the bundle is evidence of: a job id, a position id.
  subject_id text,
  key_id text,
  -- The signed bundle as JSON text, kept byte for byte as issued (jsonb would re-render numbers).
  bundle text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX evidence_bundles_subject ON evidence_bundles (service, subject_id);
`,
  },
];
