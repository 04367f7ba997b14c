/**
 * Opens "the store" a process works on, as the contract describes it:
 *  - DATABASE_URL set: that PostgreSQL server, shared by any number of processes;
 *  - otherwise the embedded PGlite in `<dataDir>/pgdata`. It belongs to one process (two
 *    processes must never open the folder), so the owner takes `<dataDir>/lattice.lock` and,
 *    when asked, serves the database on the unix socket `<dataDir>/.s.PGSQL.5432`; any other
 *    process (a CLI command, a worker) that finds a live owner connects through that socket.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openPglite, openPostgres, type Database, type EmbeddedDatabase } from './database.ts';
import { migrate, type Migration } from './migrate.ts';

export interface StoreOptions {
  dataDir: string;
  databaseUrl?: string;
  /** Apply these migrations after opening (the owner of the store does this). */
  migrations?: readonly Migration[];
  /** When this process opens the embedded database, serve it to other processes. */
  serveSocket?: boolean;
  /** shared_buffers of the embedded database (default: openPglite's). */
  sharedBuffers?: string;
}

export interface Store {
  db: Database;
  /** The master key check of platform/secrets, done when the store was opened with migrations. */
  secrets?: import('../secrets/index.ts').PrepareResult;
  /** How the store was reached, for logs: `postgres`, `embedded` or `embedded-via-socket`. */
  mode: 'postgres' | 'embedded' | 'embedded-via-socket';
  close(): Promise<void>;
}

const SOCKET_PORT = 5432;

/** The embedded store is held by another process (the one named by its pid). */
export class StoreInUseError extends Error {
  readonly code = 'data_dir_in_use';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the data dir ${dataDir} is in use by process ${pid} (another lattice serve): stop it (kill ${pid}) or use another --data-dir`);
    this.name = 'StoreInUseError';
  }
}

function lockPath(dataDir: string): string {
  return join(dataDir, 'lattice.lock');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid owning the embedded store in `dataDir`, or null when nobody (alive) does. */
export function embeddedOwner(dataDir: string): { pid: number; socket: boolean } | null {
  const path = lockPath(dataDir);
  if (!existsSync(path)) return null;
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as { pid: number; socket: boolean };
    return processAlive(info.pid) ? info : null;
  } catch {
    return null;
  }
}

function takeLock(dataDir: string, socket: boolean): () => void {
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, socket }));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = embeddedOwner(dataDir);
      if (owner) throw new StoreInUseError(dataDir, owner.pid);
      rmSync(path, { force: true }); // stale lock of a process that died
    }
  }
  throw new Error(`could not lock the data dir ${dataDir}`);
}

/** A server that has taken the lock may still be opening the database: wait for its socket. */
async function waitForSocket(path: string, pid: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} holds the data dir but has not opened its socket ${path}`);
    if (!processAlive(pid)) throw new Error(`process ${pid}, which held the data dir, has exited`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function isNewDataDir(pgdata: string): boolean {
  try {
    return readdirSync(pgdata).length === 0;
  } catch {
    return true;
  }
}

/**
 * Opens the embedded database in `pgdata`; a new one with migrations to apply starts from a
 * template (store-template.ts), and migrateAndKey then finds nothing left to do.
 */
async function openEmbedded(pgdata: string, options: StoreOptions): Promise<EmbeddedDatabase> {
  const open = { sharedBuffers: options.sharedBuffers };
  if (!options.migrations || !isNewDataDir(pgdata)) return openPglite(pgdata, open);
  const { openMigrated } = await import('./store-template.ts');
  return (await openMigrated(pgdata, options.migrations, open)).db;
}

/**
 * The owner's opening steps: the schema, then the master key of stored secrets, checked before
 * anything reads a secret (a wrong or missing key stops here; clear secrets get sealed).
 */
async function migrateAndKey(db: Database, migrations: readonly Migration[], dataDir: string): Promise<Store['secrets']> {
  await migrate(db, migrations);
  const { prepareSecrets } = await import('../secrets/index.ts');
  return prepareSecrets(db, dataDir);
}

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    const db = openPostgres({ connectionString: options.databaseUrl });
    try {
      const secrets = options.migrations ? await migrateAndKey(db, options.migrations, resolve(options.dataDir)) : undefined;
      return { db, mode: 'postgres', secrets, close: () => db.close() };
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const owner = embeddedOwner(dataDir);
  if (owner) {
    // A second server on the same embedded store would serve it twice: refuse at once.
    if (options.serveSocket) throw new StoreInUseError(dataDir, owner.pid);
    if (!owner.socket) {
      throw new Error(`the data dir ${dataDir} is in use by process ${owner.pid}, which does not serve it: wait for it to finish, or stop it (kill ${owner.pid})`);
    }
    await waitForSocket(join(dataDir, `.s.PGSQL.${SOCKET_PORT}`), owner.pid);
    // One client: over the socket every connection shares one PGlite session, so a second
    // connection could interleave statements inside our transactions.
    const db = openPostgres({ host: dataDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres', max: 1 }, { namedStatements: false });
    try {
      const secrets = options.migrations ? await migrateAndKey(db, options.migrations, dataDir) : undefined;
      return { db, mode: 'embedded-via-socket', secrets, close: () => db.close() };
    } catch (err) {
      await db.close();
      throw err;
    }
  }

  const release = takeLock(dataDir, Boolean(options.serveSocket));
  try {
    const db = await openEmbedded(join(dataDir, 'pgdata'), options);
    let secrets: Store['secrets'];
    try {
      if (options.migrations) secrets = await migrateAndKey(db, options.migrations, dataDir);
    } catch (err) {
      await db.close();
      throw err;
    }
    let server: { stop(): Promise<void> } | null = null;
    if (options.serveSocket) {
      const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
      const socketPath = join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);
      rmSync(socketPath, { force: true });
      const { pgliteForSocket } = await import('./socket-notices.ts');
      const s = new PGLiteSocketServer({ db: pgliteForSocket(db.pglite, (channel, payload) => db.deliver(channel, payload)), path: socketPath, maxConnections: 16 });
      await s.start();
      server = s;
    }
    return {
      db,
      mode: 'embedded',
      secrets,
      async close() {
        try {
          if (server) await server.stop();
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
