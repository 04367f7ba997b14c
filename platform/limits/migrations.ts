/** Schema of the cluster-wide limit windows (platform/limits/windows.ts). */
import type { Migration } from '../storage/migrate.ts';

export const limitMigrations: Migration[] = [
  {
    id: 'limits/0001_windows',
    sql: `
-- One row per counted subject and fixed window: how many units of the window's limit the
-- processes of the cluster have taken (in slices), less what they gave back unused.
CREATE TABLE limit_windows (
  subject text NOT NULL,
  window_ms integer NOT NULL,
  -- Start of the window, in ms since the Unix epoch (windows are aligned to UTC).
  window_start bigint NOT NULL,
  taken bigint NOT NULL,
  -- The size of the last slice handed out (read back by the process that asked for it).
  granted bigint NOT NULL,
  PRIMARY KEY (subject, window_ms, window_start)
);
--;
CREATE INDEX limit_windows_end ON limit_windows ((window_start + window_ms));
`,
  },
];
