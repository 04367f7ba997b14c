/** Schema of cluster leadership (platform/cluster/leader.ts). */
import type { Migration } from '../storage/migrate.ts';

export const clusterMigrations: Migration[] = [
  {
    id: 'cluster/0001_leaders',
    sql: `
-- Who leads each named piece of background work, as the leader wrote it when it took over.
-- The lock itself is a PostgreSQL advisory lock; this row tells followers where the leader is.
CREATE TABLE cluster_leaders (
  name text PRIMARY KEY,
  holder text NOT NULL,
  address text,
  since timestamptz NOT NULL
);
`,
  },
];
