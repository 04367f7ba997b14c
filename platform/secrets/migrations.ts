/** The fingerprint of the master key the store's secrets are sealed under (one row). */
import type { Migration } from '../storage/migrate.ts';

export const secretsMigrations: Migration[] = [
  {
    id: 'secrets/0001_master',
    sql: `
-- A keyed hash of the master key, never the key: a start with another key is refused.
CREATE TABLE secrets_master (
  id integer PRIMARY KEY CHECK (id = 1),
  fingerprint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  rotated_at timestamptz
);
`,
  },
];
