/**
 * Migrated store templates: a new embedded store starts from a copy of a freshly migrated one.
 *
 * Creating an embedded store runs PostgreSQL's initdb in WebAssembly and then every migration:
 * 7-10 s of CPU for all services (8.2 s user + 1.6 s system for a first `lattice accounts
 * create` on a 2-core machine, against 2.4 s for the same command on an existing data dir).
 * initdb is most of it (7.5 s of the CPU, migrations 0.8 s, in one measurement); loading a dump
 * of a store that went through both takes about 1 s. So the first new store is dumped twice:
 * right after initdb (the bare cluster's template, named as the template of no migrations) and
 * right after its migrations, before anything is written to it (no keys, no accounts). A later
 * new store with the same migrations, in a data dir or in memory, loads the second; one with
 * other migrations starts from the first and applies its own.
 *
 * A template's name is a hash of the PGlite version and every migration's id and text: a
 * changed or added migration names a new template, so a stale one is never loaded. Templates
 * untouched for a week are removed. They are kept per user (see `templateFolder`), in a folder
 * only that user can write: a template becomes the first state of every new store, so one
 * planted by someone else would be a way into it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPglite, type EmbeddedDatabase } from './database.ts';
import { migrate, type Migration } from './migrate.ts';

type PgliteOptions = NonNullable<Parameters<typeof openPglite>[1]>;

/** Templates not touched for a week belong to migrations long gone. */
const STALE_MS = 7 * 86_400_000;

/**
 * Where templates are kept: `LATTICE_STORE_TEMPLATES` when set (`off` keeps none), else the
 * user's cache folder (`$XDG_CACHE_HOME/lattice/store-templates`, by default
 * `~/.cache/lattice/store-templates`).
 */
export function templateFolder(env: NodeJS.ProcessEnv = process.env): string | null {
  const set = env.LATTICE_STORE_TEMPLATES?.trim();
  if (set) return set === 'off' ? null : set;
  const cache = env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  return join(cache, 'lattice', 'store-templates');
}

let version: string | undefined;
function pgliteVersion(): string {
  // The package's exports hide its package.json: read it beside the resolved entry (dist/).
  if (version === undefined) {
    const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
    version = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
  }
  return version;
}

/** The file name of the template for exactly these migrations. */
export function templateName(migrations: readonly Migration[]): string {
  const hash = createHash('sha256').update(pgliteVersion());
  for (const m of migrations) hash.update('\0').update(m.id).update('\0').update(m.sql);
  return `${hash.digest('hex').slice(0, 32)}.tar`;
}

/**
 * True when the folder is this user's own and nobody else can write to it. Without a uid
 * (Windows) the folder's place under the user's profile has to do.
 */
function ownFolder(folder: string): boolean {
  try {
    const st = statSync(folder);
    if (!st.isDirectory()) return false;
    if (typeof process.getuid !== 'function') return true;
    return st.uid === process.getuid() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The template for these migrations as kept on disk, or null when there is none to trust. */
export function readTemplate(migrations: readonly Migration[], env: NodeJS.ProcessEnv = process.env): Blob | null {
  const folder = templateFolder(env);
  if (!folder || !ownFolder(folder)) return null;
  try {
    return new Blob([readFileSync(join(folder, templateName(migrations)))]);
  } catch {
    return null;
  }
}

/** Drops a template that failed to load, so that the next new store makes a good one. */
export function forgetTemplate(migrations: readonly Migration[], env: NodeJS.ProcessEnv = process.env): void {
  const folder = templateFolder(env);
  if (!folder) return;
  try {
    unlinkSync(join(folder, templateName(migrations)));
  } catch {
    // gone already
  }
}

/**
 * Keeps the dump of `db`, a store that has exactly these migrations applied and nothing
 * written since, as their template. Returns the dump. Failing to keep it (no writable cache
 * folder) is not an error: the next new store is made the long way again.
 */
export async function saveTemplate(db: EmbeddedDatabase, migrations: readonly Migration[], env: NodeJS.ProcessEnv = process.env): Promise<Blob> {
  // A data dir's files lag its write-ahead log: a checkpoint puts every change in them first.
  await db.exec('CHECKPOINT');
  const bytes = Buffer.from(await (await db.pglite.dumpDataDir('none')).arrayBuffer());
  const folder = templateFolder(env);
  if (folder) {
    try {
      // A folder made here is the user's alone; one that exists is used only if it already is.
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      if (ownFolder(folder)) {
        const file = join(folder, templateName(migrations));
        // Written aside and renamed: a process reading it never sees half a file.
        const part = `${file}.${process.pid}.part`;
        writeFileSync(part, bytes, { mode: 0o600 });
        renameSync(part, file);
        removeStale(folder, file);
      }
    } catch {
      // No writable cache folder: nothing is kept.
    }
  }
  return new Blob([bytes]);
}

function removeStale(folder: string, keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (path === keep) continue;
    try {
      if (now - statSync(path).mtimeMs > STALE_MS) unlinkSync(path);
    } catch {
      // Another process removed it first.
    }
  }
}

/** A template loaded into a new store in `dir` (null: in memory); null when none is kept or it does not load. */
async function openTemplate(dir: string | null, set: readonly Migration[], options: PgliteOptions): Promise<EmbeddedDatabase | null> {
  const template = readTemplate(set);
  if (!template) return null;
  try {
    return await openPglite(dir, { ...options, loadDataDir: template });
  } catch {
    // A template that does not load (damaged, or from another build): go on without it.
    forgetTemplate(set);
    if (dir) rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

/**
 * A new store in `dir` (null: in memory) with exactly these migrations applied: loaded from
 * their template when one is kept, else made from the bare cluster's template (else by initdb,
 * keeping the bare cluster's) and migrated, and then kept as their template. `dump` is the
 * template it made, null when it loaded one or could not make one.
 */
export async function openMigrated(dir: string | null, migrations: readonly Migration[], options: PgliteOptions = {}): Promise<{ db: EmbeddedDatabase; dump: Blob | null }> {
  const whole = await openTemplate(dir, migrations, options);
  if (whole) return { db: whole, dump: null };
  let db = migrations.length ? await openTemplate(dir, [], options) : null;
  if (!db) {
    db = await openPglite(dir, options);
    // Not keeping a template only costs the next new store its time: never a reason to fail.
    if (migrations.length) await saveTemplate(db, []).catch(() => undefined);
  }
  try {
    await migrate(db, migrations);
  } catch (err) {
    await db.close();
    throw err;
  }
  return { db, dump: await saveTemplate(db, migrations).catch(() => null) };
}

const inMemory = new Map<string, Promise<Blob>>();

/**
 * The template for these migrations, made in memory when none is kept yet: what test stores
 * and benchmarks start from. One per migration set and process.
 */
export function migratedDump(migrations: readonly Migration[]): Promise<Blob> {
  const name = templateName(migrations);
  let dump = inMemory.get(name);
  if (!dump) {
    dump = (async () => {
      const kept = readTemplate(migrations);
      if (kept) return kept;
      const made = await openMigrated(null, migrations, { autovacuumMs: 0 });
      await made.db.close();
      if (!made.dump) throw new Error('the migrated store could not be dumped');
      return made.dump;
    })();
    inMemory.set(name, dump);
  }
  return dump;
}
