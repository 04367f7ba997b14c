/** Schema of variant C: licenses with their quantum-derived signatures, and the signature secret. */
import { rowChangeNotices, rowChangeTrigger } from '../../platform/licenses/license-rows.ts';
import type { Migration } from '../../platform/storage/migrate.ts';
import { LICENSE_ROWS_TOPIC } from './store.ts';

export const licensingCMigrations: Migration[] = [
  {
    id: 'licensing-c/0001_init',
    sql: `
CREATE TABLE licensing_c_licenses (
  license_key text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  end_customer_id text NOT NULL,
  features text[] NOT NULL,
  metadata jsonb,
  -- Whole seconds: the ISO text of expires_at is what the signature binds.
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  quantum_signature text NOT NULL,
  quantum_fidelity double precision NOT NULL,
  quantum_entropy double precision NOT NULL,
  generation_time_ms integer NOT NULL
);
--;
CREATE INDEX licensing_c_licenses_account ON licensing_c_licenses (account_id, expires_at);
--;
CREATE TABLE licensing_c_secrets (
  name text PRIMARY KEY,
  secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    // Every change of a license row is announced, so that the rows validation keeps in memory
    // (platform/licenses/license-rows.ts) are dropped in every process.
    id: 'licensing-c/0002_row_notices',
    sql: rowChangeTrigger('licensing_c_licenses', LICENSE_ROWS_TOPIC),
  },
  {
    // The notices name a license by its key's SHA-256, not by the key, which is a secret, on
    // the channel of the schema (platform/storage/channels.ts).
    id: 'licensing-c/0003_row_notices_by_digest_and_schema',
    sql: rowChangeNotices('licensing_c_licenses', LICENSE_ROWS_TOPIC, { digest: true }),
  },
];
