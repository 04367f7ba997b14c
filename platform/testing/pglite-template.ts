/**
 * A migrated embedded store to start test databases from. Creating an in-memory PGlite runs
 * initdb in WebAssembly and then every migration: 10-20 s of CPU on a loaded 2-core machine,
 * paid by every test file (and every service a file starts). A dump of a freshly migrated
 * store loads in a fraction of that, so the first test process to need one makes it, keeps it
 * in the system's temporary folder and every later process loads it.
 *
 * The dump's name is a hash of the PGlite version and every migration's id and text: a changed
 * or added migration names a new dump, so a stale one is never loaded. Secrets are not in it
 * (each test process seals under its own master key after loading), nor anything a test wrote.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPglite } from '../storage/database.ts';
import { migrate, type Migration } from '../storage/migrate.ts';

const FOLDER = join(tmpdir(), 'lattice-test-stores');
/** Dumps not touched for a week belong to migrations long gone. */
const STALE_MS = 7 * 86_400_000;

const made = new Map<string, Promise<Blob>>();

function pgliteVersion(): string {
  // The package's exports hide its package.json: read it beside the resolved entry (dist/).
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  return (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
}

function nameOf(migrations: readonly Migration[]): string {
  const hash = createHash('sha256').update(pgliteVersion());
  for (const m of migrations) hash.update('\0').update(m.id).update('\0').update(m.sql);
  return `${hash.digest('hex').slice(0, 32)}.tar`;
}

async function makeDump(migrations: readonly Migration[], file: string): Promise<Blob> {
  const db = await openPglite(null, { autovacuumMs: 0 });
  try {
    await migrate(db, migrations);
    const dump = await db.pglite.dumpDataDir('none');
    const bytes = Buffer.from(await dump.arrayBuffer());
    try {
      mkdirSync(FOLDER, { recursive: true });
      // Written aside and renamed: a process reading it never sees half a file.
      const part = `${file}.${process.pid}.part`;
      writeFileSync(part, bytes);
      renameSync(part, file);
      removeStale(file);
    } catch {
      // No writable temporary folder: this process keeps its dump in memory only.
    }
    return new Blob([bytes]);
  } finally {
    await db.close();
  }
}

function removeStale(keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(FOLDER)) {
    const path = join(FOLDER, name);
    if (path === keep) continue;
    try {
      if (now - statSync(path).mtimeMs > STALE_MS) unlinkSync(path);
    } catch {
      // Another process removed it first.
    }
  }
}

/** The dump of a store with exactly these migrations applied: loaded when on disk, else made. */
export function migratedDump(migrations: readonly Migration[]): Promise<Blob> {
  const name = nameOf(migrations);
  let dump = made.get(name);
  if (!dump) {
    const file = join(FOLDER, name);
    dump = (async () => {
      try {
        return new Blob([readFileSync(file)]);
      } catch {
        return makeDump(migrations, file);
      }
    })();
    made.set(name, dump);
  }
  return dump;
}
