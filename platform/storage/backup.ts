/**
 * Backup and restore of the embedded store (`lattice backup` / `lattice restore`).
 *
 * A backup is PGlite's own copy of its data folder (`dumpDataDir`, a gzipped tar), taken while
 * no statement runs: PGlite runs one statement at a time and the copy takes that same turn, so
 * the files are those of one instant, which PostgreSQL opens as after a crash (every committed
 * transaction there, none of a transaction still open). That is what a consistent copy means here.
 *
 * The embedded database belongs to one process. When `lattice serve` holds it, the command asks
 * that process for the copy through the store's socket: it sends `NOTIFY lattice_backup` with a
 * random id, the server writes the copy into its own data dir under that id (never a path the
 * caller chose) and renames it when complete, and the command moves it to the file asked for.
 * The request is one simple-protocol message, so that it cannot land inside the statements of
 * another client of the socket (all of them share the one PGlite session); the server writes
 * the table count beside the copy, so the command sends nothing else.
 * Without a server, the command opens the store itself and copies it the same way.
 *
 * The master key (`<data dir>/master.key`) is not in the backup: a backup kept apart from its
 * key is what keeps the encrypted secrets in it safe. The operator keeps both (README).
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Database, EmbeddedDatabase } from './database.ts';
import { embeddedOwner, openStore } from './store.ts';

export const BACKUP_CHANNEL = 'lattice_backup';
const BACKUP_ID = /^[a-z0-9]{16,64}$/;
const TABLES_SQL = `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`;

export class BackupError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BackupError';
  }
}

export interface BackupResult {
  file: string;
  bytes: number;
  tables: number;
}

export interface RestoreResult {
  restored: true;
  tables: number;
}

function partPath(dataDir: string, id: string): string {
  return join(dataDir, `.backup-${id}.part`);
}
function donePath(dataDir: string, id: string): string {
  return join(dataDir, `.backup-${id}.tgz`);
}
function failedPath(dataDir: string, id: string): string {
  return join(dataDir, `.backup-${id}.error`);
}
function manifestPath(dataDir: string, id: string): string {
  return join(dataDir, `.backup-${id}.json`);
}

async function tableCount(db: Pick<Database, 'query'>): Promise<number> {
  const [row] = await db.query<{ n: number }>(TABLES_SQL);
  return Number(row?.n ?? 0);
}

/** Writes PGlite's copy of its data folder to `file` (through a temporary file and a rename). */
async function dumpTo(db: EmbeddedDatabase, file: string): Promise<void> {
  const blob = await db.pglite.dumpDataDir('gzip');
  const bytes = Buffer.from(await blob.arrayBuffer());
  writeFileSync(`${file}.part`, bytes, { mode: 0o600 });
  renameSync(`${file}.part`, file);
}

/**
 * The server's side: answers backup requests arriving on the store's socket. Returns the
 * function that stops listening. A request for an id already answered, or a malformed one, is ignored.
 */
export async function serveBackups(db: EmbeddedDatabase, dataDir: string): Promise<() => Promise<void>> {
  // Copies left by a command that gave up waiting (or a crash) are not kept.
  for (const name of readdirSync(dataDir)) if (name.startsWith('.backup-')) rmSync(join(dataDir, name), { force: true });
  return db.listen(BACKUP_CHANNEL, (payload) => {
    const id = payload.trim();
    if (!BACKUP_ID.test(id) || existsSync(partPath(dataDir, id)) || existsSync(donePath(dataDir, id))) return;
    const part = partPath(dataDir, id);
    db.pglite
      .dumpDataDir('gzip')
      .then(async (blob) => {
        writeFileSync(part, Buffer.from(await blob.arrayBuffer()), { mode: 0o600 });
        writeFileSync(manifestPath(dataDir, id), JSON.stringify({ tables: await tableCount(db) }));
        renameSync(part, donePath(dataDir, id));
      })
      .catch((err: unknown) => {
        rmSync(part, { force: true });
        writeFileSync(failedPath(dataDir, id), err instanceof Error ? err.message : String(err));
      });
  });
}

/** Moves `from` to `to`, copying when they are on different file systems. */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    copyFileSync(from, `${to}.part`);
    renameSync(`${to}.part`, to);
    rmSync(from, { force: true });
  }
}

export async function backupEmbedded(options: { dataDir: string; file: string; timeoutMs?: number }): Promise<BackupResult> {
  const dataDir = resolve(options.dataDir);
  const file = resolve(options.file);
  if (!existsSync(join(dataDir, 'pgdata'))) {
    throw new BackupError('no_store', `no embedded store in ${dataDir} (nothing to back up; for PostgreSQL use pg_dump, see the README)`);
  }
  if (!existsSync(dirname(file))) throw new BackupError('bad_path', `the folder of ${file} does not exist`);
  if (existsSync(file) && statSync(file).isDirectory()) throw new BackupError('bad_path', `${file} is a folder; give a file name`);

  const owner = embeddedOwner(dataDir);
  const store = await openStore({ dataDir });
  try {
    if (store.mode === 'embedded') {
      const tables = await tableCount(store.db);
      await dumpTo(store.db as EmbeddedDatabase, file);
      return { file, bytes: statSync(file).size, tables };
    }
    if (!owner?.socket) throw new BackupError('store_busy', `the data dir ${dataDir} is held by a process that does not serve it`);
    const id = randomBytes(12).toString('hex');
    await store.db.exec(`NOTIFY ${BACKUP_CHANNEL}, '${id}'`);
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    for (;;) {
      if (existsSync(donePath(dataDir, id))) break;
      if (existsSync(failedPath(dataDir, id))) {
        const reason = readFileSync(failedPath(dataDir, id), 'utf8');
        rmSync(failedPath(dataDir, id), { force: true });
        throw new BackupError('backup_failed', `the running server could not copy the store: ${reason}`);
      }
      if (Date.now() > deadline) {
        throw new BackupError('backup_timeout', `the running server (process ${owner.pid}) did not write the backup in time; is it a version without backups? stop it and run the backup again`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const { tables } = JSON.parse(readFileSync(manifestPath(dataDir, id), 'utf8')) as { tables: number };
    rmSync(manifestPath(dataDir, id), { force: true });
    moveFile(donePath(dataDir, id), file);
    return { file, bytes: statSync(file).size, tables };
  } finally {
    await store.close();
  }
}

/** Brings a backup back into `dataDir`, which must be empty or not exist yet. */
export async function restoreEmbedded(options: { dataDir: string; file: string }): Promise<RestoreResult> {
  const dataDir = resolve(options.dataDir);
  const file = resolve(options.file);
  if (!existsSync(file) || !statSync(file).isFile()) throw new BackupError('not_found', `no backup file at ${file}`);
  if (existsSync(dataDir)) {
    if (!statSync(dataDir).isDirectory()) throw new BackupError('bad_path', `${dataDir} is not a folder`);
    const entries = readdirSync(dataDir);
    if (entries.length > 0) {
      throw new BackupError('data_dir_not_empty', `the data dir ${dataDir} is not empty (${entries.length} entries): restore only into an empty or new data dir, so that no store is overwritten`);
    }
  }
  const bytes = readFileSync(file);
  // A gzip stream starts with 1f 8b: anything else is not a backup this command wrote.
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw new BackupError('not_a_backup', `${file} is not a Lattice backup (a gzipped copy of the embedded store)`);
  }
  mkdirSync(dataDir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  let tables: number;
  try {
    const db = await PGlite.create(join(dataDir, 'pgdata'), { loadDataDir: new Blob([bytes]) });
    try {
      tables = await tableCount({ query: async <T>(text: string) => (await db.query<T>(text)).rows });
    } finally {
      await db.close();
    }
  } catch (err) {
    // Nothing half restored stays behind: the folder was empty before.
    for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { recursive: true, force: true });
    throw new BackupError('not_a_backup', `${file} could not be restored: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { restored: true, tables };
}
