/** Schema of the licensing service: signing keys, variant A licenses and revocations, variant B licenses. */
import type { Migration } from '../../platform/storage/migrate.ts';
import { variantBMigrations } from './keys/migrations.ts';

const signingAndArtifacts: Migration = {
  id: 'licensing/0001_artifacts',
  sql: `
CREATE TABLE licensing_signing_keys (
  key_id text PRIMARY KEY,
  -- 'artifact' keys sign license artifacts and revocation sets; 'kms' keys serve /kms.
  purpose text NOT NULL,
  name text NOT NULL DEFAULT 'default',
  algorithm text NOT NULL,
  public_key bytea NOT NULL,
  secret_key bytea NOT NULL,
  status text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);
--;
-- At most one active key per purpose, name and algorithm: rotation retires the old one.
CREATE UNIQUE INDEX licensing_signing_keys_active
  ON licensing_signing_keys (purpose, name, algorithm) WHERE status = 'active';
--;
CREATE TABLE licensing_artifact_licenses (
  license_id uuid PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  entitlements text[] NOT NULL,
  issued_at timestamptz NOT NULL,
  not_before timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  grace_period_days integer NOT NULL,
  bound boolean NOT NULL,
  key_ids text[] NOT NULL,
  issued_epoch bigint NOT NULL
);
--;
CREATE INDEX licensing_artifact_licenses_account ON licensing_artifact_licenses (account_id);
--;
CREATE TABLE licensing_epoch (
  id integer PRIMARY KEY CHECK (id = 1),
  epoch bigint NOT NULL
);
--;
INSERT INTO licensing_epoch (id, epoch) VALUES (1, 0);
--;
-- Current revocation state per license; a restore clears it (the history is in the events).
CREATE TABLE licensing_revocations (
  license_id uuid PRIMARY KEY REFERENCES licensing_artifact_licenses(license_id) ON DELETE CASCADE,
  reason text NOT NULL,
  revoked_at timestamptz NOT NULL,
  effective_until timestamptz,
  epoch bigint NOT NULL
);
--;
-- One row per epoch: every change of revocation state has exactly one epoch.
CREATE TABLE licensing_revocation_events (
  epoch bigint PRIMARY KEY,
  license_id uuid NOT NULL,
  account_id text NOT NULL,
  action text NOT NULL,
  reason text,
  effective_until timestamptz,
  at timestamptz NOT NULL
);
--;
CREATE INDEX licensing_revocation_events_account ON licensing_revocation_events (account_id, epoch);
`,
};

export const licensingMigrations: Migration[] = [signingAndArtifacts, ...variantBMigrations];
