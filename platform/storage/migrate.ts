/**
 * Versioned schema migrations: each module contributes an ordered list of SQL scripts with
 * stable ids; `migrate` applies the ones a database has not seen, each in its own
 * transaction, under an advisory lock so that two processes starting together apply each
 * script once.
 */
import type { Database } from './database.ts';

export interface Migration {
  /** Stable, unique id, e.g. `identity/0001_init`. Never rename or edit an applied one. */
  id: string;
  sql: string;
}

// An arbitrary constant shared by every Lattice process: the key of the migration lock.
const MIGRATION_LOCK_KEY = 7_310_425;

export async function migrate(db: Database, migrations: readonly Migration[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const m of migrations) {
    if (ids.has(m.id)) throw new Error(`duplicate migration id ${m.id}`);
    ids.add(m.id);
  }
  await db.exec(
    `CREATE TABLE IF NOT EXISTS lattice_migrations (
       id text PRIMARY KEY,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
  );
  await db.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    const rows = await db.query<{ id: string }>('SELECT id FROM lattice_migrations');
    const applied = new Set(rows.map((r) => r.id));
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.id)) continue;
      await db.transaction(async (tx) => {
        // Scripts may hold several statements: split on the `--;` marker line.
        for (const statement of m.sql.split(/^--;\s*$/m)) {
          if (statement.trim()) await tx.query(statement);
        }
        await tx.query('INSERT INTO lattice_migrations (id) VALUES ($1)', [m.id]);
      });
      done.push(m.id);
    }
    return done;
  } finally {
    await db.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}
