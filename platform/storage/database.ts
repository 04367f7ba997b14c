/**
 * One small SQL interface over the three ways Lattice reaches PostgreSQL: the embedded PGlite
 * in the data dir, a PGlite served by a running `lattice serve` (over its unix socket), and a
 * real server named by DATABASE_URL. Callers write PostgreSQL and never know which it is.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type pgTypes from 'pg';
import { channelSql } from './channels.ts';
import { startEmbeddedAutovacuum } from './embedded-autovacuum.ts';
import { StatementNames } from './pg-prepared.ts';
import { PreparedStatements } from './pglite-prepared.ts';

export interface Sql {
  /** Runs one parameterised statement and returns its rows. */
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Database extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `fn` in one transaction: commit when it resolves, roll back when it throws.
   * `asynchronousCommit`: on PostgreSQL the commit returns before its WAL reaches the disk
   * (`SET LOCAL synchronous_commit = off`, sent with the BEGIN in one round trip): visible to
   * every session at once, lost only if the server itself crashes within its WAL writer delay.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>, options?: { asynchronousCommit?: boolean }): Promise<T>;
  /**
   * Runs several statements separated by semicolons, without parameters, in one round trip
   * (migrations, the job queue's locked commands); returns the last statement's rows.
   */
  exec(script: string): Promise<Record<string, unknown>[]>;
  /**
   * Calls `handler` for each NOTIFY on `channel` delivered to this process; returns a function
   * that stops listening. PGlite delivers only notifications raised inside its own process.
   */
  listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * A connection of its own, for state that belongs to a session (advisory locks held while a
   * process leads: platform/cluster). `onLost` is called once if the connection fails. The
   * embedded store has one session for its one process: it answers null.
   */
  dedicated(onLost: (err: Error) => void): Promise<DedicatedSession | null>;
  close(): Promise<void>;
}

export interface DedicatedSession extends Sql {
  /** Gives the connection back (closing it, so that what the session held is released). */
  release(): Promise<void>;
}

let pgModule: typeof pgTypes | null = null;

/**
 * node-postgres, loaded on the first PostgreSQL connection rather than at start: a server on
 * the embedded store never needs it, and loading it costs a few hundred ms of start-up.
 * (A CommonJS package: `require` loads it synchronously, keeping `openPostgres` synchronous.)
 */
function loadPg(): typeof pgTypes {
  if (!pgModule) {
    pgModule = createRequire(import.meta.url)('pg') as typeof pgTypes;
    // pg parses int8 and numeric as strings by default; our counters fit in a double.
    pgModule.types.setTypeParser(20, (v) => Number(v));
  }
  return pgModule;
}

/**
 * A database reached through node-postgres: a real server or a served PGlite. Statements with
 * parameters run as named prepared statements (pg-prepared.ts) unless `namedStatements` is
 * false, as it must be for the embedded store's socket, whose connections share one session.
 */
export function openPostgres(config: pgTypes.PoolConfig, options: { namedStatements?: boolean } = {}): Database {
  const pg = loadPg();
  const pool = new pg.Pool({ max: 10, ...config });
  const listeners = new Set<() => Promise<void>>();
  const names = options.namedStatements === false ? null : new StatementNames();
  const statement = (text: string, params?: readonly unknown[]): pgTypes.QueryConfig =>
    names ? names.query(text, params) : { text, values: params as unknown[] | undefined };
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  return {
    kind: 'postgres',
    async query<T>(text: string, params?: readonly unknown[]) {
      try {
        return (await pool.query(statement(text, params))).rows as T[];
      } catch (err) {
        // Outside a transaction a statement the server no longer takes under its name is
        // prepared again under a new one and run once more (inside one, the failure has
        // aborted the caller's transaction, which fails as it would have without names).
        if (!names?.replanned(text, err)) throw err;
        return (await pool.query(statement(text, params))).rows as T[];
      }
    },
    async transaction<T>(fn: (tx: Sql) => Promise<T>, options: { asynchronousCommit?: boolean } = {}) {
      const client = await pool.connect();
      try {
        await client.query(options.asynchronousCommit ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
        const tx: Sql = {
          async query<R>(text: string, params?: readonly unknown[]) {
            try {
              return (await client.query(statement(text, params))).rows as R[];
            } catch (err) {
              names?.replanned(text, err);
              throw err;
            }
          },
        };
        const value = await fn(tx);
        await client.query('COMMIT');
        return value;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(script: string) {
      const result = (await pool.query(script)) as unknown as pgTypes.QueryResult | pgTypes.QueryResult[];
      const last = Array.isArray(result) ? result[result.length - 1] : result;
      return (last?.rows ?? []) as Record<string, unknown>[];
    },
    async listen(channel, handler) {
      // A dedicated connection: LISTEN belongs to a session, and pooled sessions come and go.
      const client = await pool.connect();
      let name: string;
      const onNotification = (msg: pgTypes.Notification) => {
        if (msg.channel === name) handler(msg.payload ?? '');
      };
      try {
        // The channel as named in this session's schema (channels.ts).
        const { rows } = await client.query<{ name: string }>(`SELECT ${channelSql('$1::text')} AS name`, [channel]);
        name = rows[0]!.name;
        client.on('notification', onNotification);
        await client.query(`LISTEN ${pg.escapeIdentifier(name)}`);
      } catch (err) {
        client.off('notification', onNotification);
        client.release();
        throw err;
      }
      const stop = async () => {
        if (!listeners.delete(stop)) return;
        client.off('notification', onNotification);
        await client.query(`UNLISTEN ${pg.escapeIdentifier(name)}`).catch(() => {});
        client.release();
      };
      listeners.add(stop);
      return stop;
    },
    async dedicated(onLost) {
      const client = new pg.Client(config);
      let lost = false;
      const fail = (err: Error) => {
        if (lost) return;
        lost = true;
        onLost(err);
      };
      client.on('error', fail);
      client.on('end', () => fail(new Error('connection ended')));
      await client.connect();
      return {
        async query<R>(text: string, params?: readonly unknown[]) {
          return (await client.query(text, params as unknown[] | undefined)).rows as R[];
        },
        async release() {
          lost = true;
          await client.end().catch(() => {});
        },
      };
    },
    async close() {
      // pool.end() waits for checked-out clients: give back the listening ones first.
      await Promise.all([...listeners].map((stop) => stop()));
      await pool.end();
    },
  };
}

export interface EmbeddedDatabase extends Database {
  /** The PGlite instance, for serving it over a socket to other processes. */
  readonly pglite: import('@electric-sql/pglite').PGlite;
  /** Hands a notification raised outside this process's own session (over the socket) to its listeners. */
  deliver(channel: string, payload: string): void;
}

/** How often the embedded store's autovacuum looks for tables to vacuum or analyze (embedded-autovacuum.ts). */
export const EMBEDDED_AUTOVACUUM_MS = 10_000;

/**
 * shared_buffers of an embedded store kept in a data dir. PostgreSQL's 128MB is set up at every
 * start: PGlite took 1.34 s of CPU to open a store with it, 1.01-1.08 s with 32MB (and 100 MB
 * less memory), measured at load 9 on 2 cores. Pages outside the pool come from the data dir's
 * files through the system's file cache.
 */
export const EMBEDDED_SHARED_BUFFERS = '32MB';
/** In memory every page already sits in PGlite's in-memory file system: a pool only copies it. */
const IN_MEMORY_SHARED_BUFFERS = '16MB';

const BYTEA_OID = 17;

/**
 * bytea parameters and values in PostgreSQL's hex format, through Node's native hex codec.
 * PGlite's own converters go through a string per byte: 3.3 ms to send a 16 KB compressed
 * result against 0.5 ms for the whole UPDATE this way (measured on a 2-core machine).
 */
function byteaToText(value: unknown): string {
  if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
}

/** A plain Uint8Array (not a Buffer), as PGlite's own parser returns. */
function byteaFromText(text: string): Uint8Array {
  // PostgreSQL's default output; the escape format (bytea_output = escape) is never set here.
  if (!text.startsWith('\\x')) throw new Error('bytea value not in hex format (bytea_output must be hex)');
  const out = new Uint8Array((text.length - 2) >>> 1);
  Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(text.slice(2), 'hex');
  return out;
}

/**
 * How much a WebAssembly function of PGlite runs (V8's rough count of bytes executed) before V8
 * compiles it again with its optimizing compiler: ten times V8's default. At the default,
 * PostgreSQL's own start-up code (catalog loading, the first statements) runs hot enough to be
 * recompiled, on background threads that take the cores the start needs: a `serve --only
 * licensing` took 0.83-1.01 s to its first /health with the default and 0.66-0.71 s with this
 * (2 cores, five runs each; `npm run bench -- cli`: 841-861 -> 677-736 ms), the opening 435 ms
 * of CPU instead of 567. The statements a service repeats still reach the budget within a
 * second or two: 1,000 mixed statements per second after 2 s either way (12 s measured), and
 * the quantum-api bench's Bell and 20-qubit latencies did not move (three alternations).
 */
export const PGLITE_TIERING_BUDGET = 18_000_000;
/** V8's own --wasm-tiering-budget (its default in Node 20), put back once PGlite has started. */
export const V8_TIERING_BUDGET = 1_800_000;

/**
 * The --wasm-tiering-budget this process was started with (`node --wasm-tiering-budget=N`),
 * or null. An operator's own budget is left alone: PGlite starts under it, and nothing is reset.
 * (Node refuses the flag in NODE_OPTIONS, so the command line is the only place it can be given.)
 */
export function givenTieringBudget(execArgv: readonly string[]): number | null {
  for (const arg of execArgv) {
    const m = /^--wasm[-_]tiering[-_]budget=(\d+)$/.exec(arg);
    if (m) return Number(m[1]);
  }
  return null;
}

/**
 * The embedded PGlite kept in `dir` (created when missing); `dir` null keeps it in memory.
 * `loadDataDir` starts it from a dump (`dumpDataDir`) instead of an empty cluster.
 * `autovacuumMs` is the autovacuum's interval (0: none, for a store opened only to be dumped).
 * `sharedBuffers` is PostgreSQL's shared_buffers (a size such as 32MB), given on the command
 * line so that the data dir's postgresql.conf stays as initdb wrote it.
 */
export async function openPglite(
  dir: string | null,
  options: { loadDataDir?: Blob; autovacuumMs?: number; sharedBuffers?: string } = {},
): Promise<EmbeddedDatabase> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir && !existsSync(dir)) mkdirSync(dir, { recursive: true });
  const sharedBuffers = options.sharedBuffers ?? (dir ? EMBEDDED_SHARED_BUFFERS : IN_MEMORY_SHARED_BUFFERS);
  const settings = {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`],
    serializers: { [BYTEA_OID]: byteaToText },
    parsers: { [BYTEA_OID]: byteaFromText },
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  };
  // The budget is given to each function as its module is instantiated: set around PGlite's
  // start only, so that no other module (liboqs, compiled before or after) runs under it.
  const ownBudget = givenTieringBudget(process.execArgv) === null;
  if (ownBudget) setFlagsFromString(`--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}`);
  let db: InstanceType<typeof PGlite>;
  try {
    db = dir ? await PGlite.create(dir, settings) : await PGlite.create(settings);
  } finally {
    if (ownBudget) setFlagsFromString(`--wasm-tiering-budget=${V8_TIERING_BUDGET}`);
  }
  // Listeners by channel, for notifications that arrive over the socket (socket-notices.ts).
  const socketListeners = new Map<string, Set<(payload: string) => void>>();
  const prepared = new PreparedStatements(db);
  const intervalMs = options.autovacuumMs ?? EMBEDDED_AUTOVACUUM_MS;
  const autovacuum = intervalMs > 0
    ? startEmbeddedAutovacuum(db, { intervalMs, onError: (err) => process.emitWarning(`embedded store autovacuum: ${err.message}`) })
    : null;
  return {
    kind: 'pglite',
    pglite: db,
    // Statements with parameters (every repeated one) run as named prepared statements
    // (pglite-prepared.ts); the others, mostly scripts and one-off commands, as PGlite runs them.
    async query<T>(text: string, params?: readonly unknown[]) {
      if (params?.length) return prepared.query<T>(text, params, false);
      return (await db.query<T>(text)).rows;
    },
    async transaction<T>(fn: (tx: Sql) => Promise<T>) {
      return db.transaction(async (tx) =>
        fn({
          async query<R>(text: string, params?: readonly unknown[]) {
            if (params?.length) return prepared.query<R>(text, params, true);
            return (await tx.query<R>(text)).rows;
          },
        }),
      );
    },
    async exec(script: string) {
      const results = await db.exec(script);
      return (results[results.length - 1]?.rows ?? []) as Record<string, unknown>[];
    },
    async listen(channel, handler) {
      const stop = await db.listen(channel, handler);
      const set = socketListeners.get(channel) ?? new Set();
      set.add(handler);
      socketListeners.set(channel, set);
      return async () => {
        set.delete(handler);
        await stop();
      };
    },
    async dedicated() {
      return null;
    },
    deliver(channel, payload) {
      for (const handler of socketListeners.get(channel) ?? []) handler(payload);
    },
    async close() {
      await autovacuum?.stop();
      if (!db.closed) await db.close();
    },
  };
}
