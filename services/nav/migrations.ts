/** Schema of the positioning service: positions issued, spoofing events, holdover periods, calibrations, the operator's scenario switch. */
import { sessionTableSql } from '../../platform/http/session.ts';
import type { Migration } from '../../platform/storage/migrate.ts';

export const navMigrations: Migration[] = [
  {
    id: 'nav/0001_init',
    sql: `
CREATE TABLE nav_positions (
  position_id text PRIMARY KEY,
  account_id text NOT NULL,
  -- The position, integrity and timing objects as answered (JSON text, kept as issued).
  position text NOT NULL,
  integrity text NOT NULL,
  timing text NOT NULL,
  source text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX nav_positions_account ON nav_positions (account_id, created_at);
--;
-- One row per spoofing or interference event, opened on the first warning and closed when
-- the signals stay clean for the quiet period. Times are the receiver's (source) UTC.
CREATE TABLE nav_spoofing_events (
  event_id text PRIMARY KEY,
  started_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  resolved_at timestamptz,
  status text NOT NULL,
  threat_type text NOT NULL,
  checks text NOT NULL,
  source text NOT NULL
);
--;
CREATE INDEX nav_spoofing_events_time ON nav_spoofing_events (started_at);
--;
-- Holdover periods: entered when the source is lost or suspect, left when clean signals return,
-- with the clock error found at recovery against the predicted one-sigma error.
CREATE TABLE nav_holdovers (
  holdover_id text PRIMARY KEY,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  reason text NOT NULL,
  error_ns double precision,
  predicted_sigma_ns double precision,
  source text NOT NULL
);
--;
CREATE INDEX nav_holdovers_time ON nav_holdovers (started_at);
--;
CREATE TABLE nav_calibrations (
  calibration_id text PRIMARY KEY,
  calibrated_at timestamptz NOT NULL DEFAULT now(),
  samples integer NOT NULL,
  span_s double precision NOT NULL,
  drift_ns_per_hour double precision NOT NULL,
  drift_sigma_ns_per_hour double precision NOT NULL,
  residual_rms_ns double precision NOT NULL,
  improvement_percent double precision NOT NULL
);
--;
-- The operator's scenario switch (lattice nav scenario): one row; a running service applies a
-- new seq once and writes back what it did.
CREATE TABLE nav_control (
  id integer PRIMARY KEY CHECK (id = 1),
  seq bigint NOT NULL,
  scenario text NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  applied_seq bigint,
  applied_at timestamptz,
  applied_message text
);
`,
  },
  // Browser sessions of console users on the positioning page (routes/page.ts).
  { id: 'nav/0002_sessions', sql: sessionTableSql('nav_sessions') },
];
