/** Schema of the feature license keys (variant Q `X-License-Key`), shared by every process. */
import type { Migration } from '../storage/migrate.ts';
import { FEATURE_KEYS_TOPIC } from './feature-keys.ts';
import { rowChangeNotices, rowChangeTrigger } from './license-rows.ts';

export const featureKeyMigrations: Migration[] = [
  {
    id: 'licenses/0001_feature_keys',
    sql: `
CREATE TABLE license_feature_keys (
  -- SHA-256 of the whole key (LQK-XXXX-XXXX-XXXX): the plaintext is printed once and never stored.
  key_hash text PRIMARY KEY,
  last4 text NOT NULL,
  service text NOT NULL,
  account_id text REFERENCES accounts(id) ON DELETE CASCADE,
  features text[] NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
)`,
  },
  {
    // Every UPDATE or DELETE of a key (a revocation, an account's deletion) drops the row that
    // processes keep in memory (feature-keys.ts).
    id: 'licenses/0002_feature_keys_changed',
    sql: rowChangeTrigger('license_feature_keys', FEATURE_KEYS_TOPIC, 'key_hash'),
  },
  {
    // The notices go to the channel of the schema (platform/storage/channels.ts).
    id: 'licenses/0003_feature_keys_changed_by_schema',
    sql: rowChangeNotices('license_feature_keys', FEATURE_KEYS_TOPIC, { column: 'key_hash', digest: false }),
  },
];
