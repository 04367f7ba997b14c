/**
 * Cluster test harness: several real `lattice serve` processes on one fresh PostgreSQL
 * database, each on ports the OS picks, so that tests can spread requests over them, kill one
 * with SIGKILL and check that the survivors behave as one service.
 *
 * The server comes from LATTICE_TEST_POSTGRES_URL or DATABASE_URL (CI provides one); a test
 * file asks `clusterDatabaseUrl()` first and skips when there is none.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccount, setPlan } from '../identity/accounts.ts';
import { createKey } from '../identity/keys.ts';
import { openPostgres, type Database } from '../storage/database.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');

/** The PostgreSQL server to build clusters on, when one answers; null otherwise. */
export async function clusterDatabaseUrl(): Promise<string | null> {
  const url = process.env.LATTICE_TEST_POSTGRES_URL || process.env.DATABASE_URL;
  if (!url) return null;
  const db = openPostgres({ connectionString: url, max: 1, connectionTimeoutMillis: 3_000 });
  try {
    await db.query('SELECT 1');
    return url;
  } catch {
    return null;
  } finally {
    await db.close().catch(() => {});
  }
}

export interface ClusterProcess {
  readonly index: number;
  readonly pid: number;
  /** The base URL of each service this process serves, by service id. */
  readonly urls: Record<string, string>;
  readonly alive: boolean;
  /** Everything the process printed, for failure messages. */
  output(): string;
  /** Ends the process with `signal` and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface Cluster {
  /** The cluster's own database (created for it, dropped at close). */
  readonly databaseUrl: string;
  /** A connection to that database, for setting up data and checking what the processes wrote. */
  readonly db: Database;
  /** What a `lattice` command needs to join this cluster's store (DATABASE_URL, the master key). */
  readonly env: Record<string, string>;
  readonly processes: ClusterProcess[];
  /** Starts one more process like the others (e.g. to replace a killed one). */
  add(): Promise<ClusterProcess>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  services: string[];
  size?: number;
  /** Extra environment of every process (LATTICE_* settings). */
  env?: Record<string, string>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function startCluster(baseUrl: string, options: ClusterOptions): Promise<Cluster> {
  const name = `lattice_cluster_${randomBytes(5).toString('hex')}`;
  const admin = openPostgres({ connectionString: baseUrl, max: 1 });
  await admin.exec(`CREATE DATABASE ${name}`);
  const databaseUrl = withDatabase(baseUrl, name);
  const db = openPostgres({ connectionString: databaseUrl, max: 4 });
  const dataDir = mkdtempSync(join(tmpdir(), 'lattice-cluster-'));
  // Every process shares the master key: they read each other's secrets in the one database.
  const masterKey = randomBytes(32).toString('base64');
  const ports = Object.fromEntries(options.services.map((id) => [`LATTICE_${id.toUpperCase().replaceAll('-', '_')}_PORT`, '0']));
  const processes: ClusterProcess[] = [];

  const launch = (index: number): Promise<ClusterProcess> =>
    new Promise((resolve, reject) => {
      const child: ChildProcess = spawn(process.execPath, [bin, 'serve', '--only', options.services.join(','), '--data-dir', join(dataDir, String(index))], {
        cwd: root,
        env: { ...process.env, ...ports, LATTICE_MASTER_KEY: masterKey, LATTICE_DRAIN_SECONDS: '0', ...options.env, DATABASE_URL: databaseUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let alive = true;
      const urls: Record<string, string> = {};
      const exited = new Promise<void>((r) => child.once('exit', () => ((alive = false), r())));
      const proc: ClusterProcess = {
        index,
        pid: child.pid!,
        urls,
        get alive() {
          return alive;
        },
        output: () => out,
        async kill(signal = 'SIGTERM') {
          if (alive) child.kill(signal);
          await exited;
        },
      };
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`cluster process ${index} did not start within 120 s:\n${out}`));
      }, 120_000);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        for (const m of out.matchAll(/^(\S+)\s+(http:\/\/\S+)\s+\(docs/gm)) urls[m[1]!] = m[2]!;
        if (options.services.every((id) => urls[id])) {
          clearTimeout(timer);
          resolve(proc);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`cluster process ${index} exited with ${code} before it started:\n${out}`));
      });
    });

  try {
    // One at a time: the first applies the migrations, the others find them applied.
    for (let i = 0; i < (options.size ?? 3); i++) processes.push(await launch(i));
  } catch (err) {
    await Promise.allSettled(processes.map((p) => p.kill('SIGKILL')));
    await db.close();
    await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }

  return {
    databaseUrl,
    db,
    env: { DATABASE_URL: databaseUrl, LATTICE_MASTER_KEY: masterKey },
    processes,
    async add() {
      const p = await launch(processes.length);
      processes.push(p);
      return p;
    },
    async close() {
      await Promise.allSettled(processes.map((p) => p.kill('SIGTERM')));
      await db.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Why a cluster test file skips: it runs once, in the embedded pass of `npm test` (the
 * processes bring their own PostgreSQL database), and only when a server is reachable.
 * Resolves to the server's URL when the file should run.
 */
export async function clusterTestServer(): Promise<{ url: string | null; skip: string | false }> {
  if (process.env.DATABASE_URL) return { url: null, skip: 'runs once, in the embedded pass' };
  const url = await clusterDatabaseUrl();
  return { url, skip: url ? false : 'needs a PostgreSQL server (LATTICE_TEST_POSTGRES_URL)' };
}

/** A new account with a key of `service` (and a plan); for setting up a cluster test. */
export async function clusterKey(db: Database, service: string, prefix: string, plan?: string, role?: string): Promise<{ key: string; id: string; accountId: string }> {
  const account = await createAccount(db, { email: `cluster-${randomBytes(6).toString('hex')}@example.test` });
  if (plan) await setPlan(db, account.id, service, plan);
  const key = await createKey(db, { accountId: account.id, service, prefix, ...(role ? { role } : {}) });
  return { key: key.key, id: key.id, accountId: account.id };
}

/** Waits, when needed, until the current UTC minute has at least `seconds` left (fixed-window limits). */
export async function roomInMinute(seconds: number): Promise<void> {
  const left = 60 - new Date().getUTCSeconds();
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

/** Polls `fn` until it returns something truthy; throws naming `what` after `ms`. */
export async function eventually<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
