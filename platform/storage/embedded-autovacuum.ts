/**
 * PostgreSQL's autovacuum, for the embedded store. PGlite runs PostgreSQL in single-user mode,
 * where no autovacuum launcher exists: without this loop no table of the embedded store is
 * ever analyzed or vacuumed. The planner then guesses row counts from page counts alone (on
 * quantum_jobs it took the last 50 starts of a backend by sorting every start it ever had, so
 * a submission's queue statement grew with the store's history), and the dead row versions
 * that every UPDATE leaves stay in the tables for good.
 *
 * Every `intervalMs` the loop reads the cumulative statistics (pg_stat_user_tables) and, with
 * PostgreSQL's default thresholds, vacuums (and analyzes) each table with enough dead rows
 * since its last vacuum, and analyzes each table changed enough since its last analyze. Unlike
 * PostgreSQL it does not vacuum for inserts alone (that sets visibility bits, for index-only
 * scans): here the work holds the store's one session, which requests wait for. One table per
 * statement, so that requests interleave with the work. PostgreSQL servers run their own
 * autovacuum; this is for the embedded store only.
 */
import type { PGlite } from '@electric-sql/pglite';

/** PostgreSQL's defaults (autovacuum_vacuum_threshold, ..._scale_factor, and the analyze ones). */
export const AUTOVACUUM_THRESHOLDS = {
  vacuum: 50,
  vacuumScale: 0.2,
  analyze: 50,
  analyzeScale: 0.1,
} as const;

export interface TableDue {
  schema: string;
  table: string;
  /** VACUUM (ANALYZE): dead rows past their threshold. */
  vacuum: boolean;
  /** ANALYZE alone: changed rows past the analyze threshold. */
  analyze: boolean;
}

interface StatRow {
  schemaname: string;
  relname: string;
  n_dead_tup: string | number;
  n_mod_since_analyze: string | number;
  reltuples: string | number;
}

/** The tables due for a vacuum or an analyze now, by PostgreSQL's own rule. */
export async function tablesDue(db: PGlite): Promise<TableDue[]> {
  // A session reports its statistics at most once a second; the next report is made now, at
  // the end of this statement, so that the read below sees every write made so far.
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<StatRow>(
    `SELECT s.schemaname, s.relname, s.n_dead_tup, s.n_mod_since_analyze, GREATEST(c.reltuples, 0) AS reltuples
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid`,
  );
  const t = AUTOVACUUM_THRESHOLDS;
  const due: TableDue[] = [];
  for (const r of rows) {
    const tuples = Number(r.reltuples);
    const vacuum = Number(r.n_dead_tup) > t.vacuum + t.vacuumScale * tuples;
    const analyze = Number(r.n_mod_since_analyze) > t.analyze + t.analyzeScale * tuples;
    if (vacuum || analyze) due.push({ schema: r.schemaname, table: r.relname, vacuum, analyze: analyze && !vacuum });
  }
  return due;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** One pass: vacuums or analyzes every table due; returns what it did. */
export async function autovacuumOnce(db: PGlite): Promise<TableDue[]> {
  const due = await tablesDue(db);
  for (const t of due) {
    if (db.closed) break;
    const name = `${quoted(t.schema)}.${quoted(t.table)}`;
    await db.query(t.vacuum ? `VACUUM (ANALYZE) ${name}` : `ANALYZE ${name}`);
  }
  return due;
}

/** Runs `autovacuumOnce` every `intervalMs` until stopped; `stop` waits for a pass under way. */
export function startEmbeddedAutovacuum(db: PGlite, o: { intervalMs: number; onError?: (err: Error) => void }): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = autovacuumOnce(db)
        .catch((err: Error) => {
          if (!db.closed) o.onError?.(err);
        })
        .finally(() => {
          running = null;
          schedule();
        });
    }, o.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
