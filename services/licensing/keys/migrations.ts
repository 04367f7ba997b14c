/** Schema of variant B: license keys with their quantum-derived signatures, and the signing secret. */
import { rowChangeNotices, rowChangeTrigger } from '../../../platform/licenses/license-rows.ts';
import type { Migration } from '../../../platform/storage/migrate.ts';
import { LICENSE_ROWS_TOPIC } from './store.ts';

export const variantBMigrations: Migration[] = [
  {
    id: 'licensing/0101_variant_b',
    sql: `
CREATE TABLE licensing_b_licenses (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  license_key text NOT NULL UNIQUE,
  end_customer_id text NOT NULL,
  features text[] NOT NULL,
  metadata jsonb,
  -- Whole seconds, UTC: the text form YYYY-MM-DDTHH:MM:SS is what the signature binds.
  valid_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  quantum_signature text NOT NULL,
  -- Measured on the simulator when the license was generated (reported, and re-measured on validation).
  qcos_fidelity double precision NOT NULL,
  qcos_entropy double precision NOT NULL,
  revoked_at timestamptz,
  revoked_reason text
);
--;
CREATE INDEX licensing_b_licenses_account ON licensing_b_licenses (account_id, id DESC);
--;
CREATE INDEX licensing_b_licenses_revoked ON licensing_b_licenses (account_id, revoked_at) WHERE revoked_at IS NOT NULL;
--;
-- The keyed-hash secret of the quantum signatures: created once, never leaves the database.
CREATE TABLE licensing_b_secrets (
  name text PRIMARY KEY,
  secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    // Every change of a license row is announced, so that the rows validation keeps in memory
    // (platform/licenses/license-rows.ts) are dropped in every process.
    id: 'licensing/0102_variant_b_row_notices',
    sql: rowChangeTrigger('licensing_b_licenses', LICENSE_ROWS_TOPIC),
  },
  {
    // The notices name a license by its key's SHA-256, not by the key, which is a secret, on
    // the channel of the schema (platform/storage/channels.ts).
    id: 'licensing/0103_variant_b_row_notices_by_digest_and_schema',
    sql: rowChangeNotices('licensing_b_licenses', LICENSE_ROWS_TOPIC, { digest: true }),
  },
];
