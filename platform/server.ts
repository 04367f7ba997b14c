/**
 * Starts services: opens the store once (applying every service's migrations, so there is
 * one schema whatever `--only` says), builds each service's app, listens on its port and,
 * on SIGTERM or SIGINT, answers `/ready` with 503 `draining` for the drain period (when a load
 * balancer polls it), then stops accepting, lets in-flight requests finish, and closes the
 * store cleanly. Every service answers `/ready` 503 `starting` until all of them are up and the
 * queue workers they start after answering (jobs/background.ts) are running.
 */
import type { LatticeConfig } from './config.ts';
import type { ServiceApp } from './http/app.ts';
import { platformMigrations } from './migrations.ts';
import { holdWorkerStarts, releaseWorkerStarts, workerStartsSettled } from './jobs/background.ts';
import type { JobQueue } from './jobs/queue.ts';
import { jobQueueGauge, storeGauges, trainingGauge } from './observability/families.ts';
import { holdReadiness, nameService, readinessWatched, setPhase } from './observability/http.ts';
import type { ServiceContext, ServiceDefinition } from './service.ts';
import type { Migration } from './storage/migrate.ts';
import type { EmbeddedDatabase } from './storage/database.ts';
import { openStore, type Store } from './storage/store.ts';

/** Services whose work is paid through credit holds, and those that run quantum jobs: their /metrics show these figures. */
const HOLD_SERVICES = new Set(['llm-gateway', 'platform', 'runtime', 'suppliers']);
const QUANTUM_SERVICES = new Set(['qcos', 'core', 'platform', 'runtime', 'suppliers']);

export function allMigrations(services: readonly ServiceDefinition[]): Migration[] {
  return [...platformMigrations, ...services.flatMap((s) => s.migrations)];
}

/** An error of `listen` as one line that says what to do. */
function listenError(err: unknown, id: string, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const env = `LATTICE_${id.toUpperCase().replaceAll('-', '_')}_PORT`;
  if (code === 'EADDRINUSE') {
    return Object.assign(
      new Error(`port ${port} on ${host} (service ${id}) is already in use: stop the program listening there, or give ${id} another port (${env}=<port>, or services.${id}.port in lattice.config.json)`),
      { code: 'port_in_use' },
    );
  }
  if (code === 'EACCES') {
    return Object.assign(new Error(`no permission to listen on port ${port} (service ${id}): use a port above 1023 (${env}=<port>)`), { code: 'port_denied' });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return Object.assign(new Error(`cannot listen on ${host}: not an address of this machine (--host / LATTICE_HOST)`), { code: 'bad_host' });
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** Binds and releases the port once; throws the one-line error of `listenError` when that fails. */
async function checkPortFree(id: string, host: string, port: number): Promise<void> {
  if (port === 0) return;
  const { createServer } = await import('node:net');
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => reject(listenError(err, id, host, port)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The process's job queue, with pg-boss loaded only when a service first asks for it. */
function lazyJobQueue(db: Store['db']): { get: () => Promise<JobQueue>; stop: () => Promise<void> } {
  let inner: Promise<{ get: () => Promise<JobQueue>; stop: () => Promise<void> }> | null = null;
  const get = async () => (await (inner ??= import('./jobs/queue.ts').then((m) => m.lazyQueue(db)))).get();
  return {
    get,
    async stop() {
      // A worker start still running (a start that failed beside it) must not register on a stopped queue.
      await workerStartsSettled(get);
      if (inner) await (await inner).stop();
    },
  };
}

export interface RunningService {
  id: string;
  url: string;
  app: ServiceApp;
}

export interface RunningLattice {
  store: Store;
  services: RunningService[];
  stop(): Promise<void>;
}

export async function startLattice(
  config: LatticeConfig,
  definitions: readonly ServiceDefinition[],
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<RunningLattice> {
  const selected = definitions.filter((d) => !config.only || config.only.includes(d.id));
  // A taken port is found before the store is opened, so that the start fails at once.
  await Promise.all(selected.map((d) => checkPortFree(d.id, config.host, config.services[d.id]!.port)));
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl ?? undefined,
    migrations: allMigrations(definitions),
    serveSocket: true,
    sharedBuffers: config.embeddedSharedBuffers ?? undefined,
  });
  // Under `lattice serve` the embedded store answers `lattice backup` through its socket.
  const stopBackups =
    store.mode === 'embedded'
      ? await import('./storage/backup.ts').then((m) => m.serveBackups(store.db as EmbeddedDatabase, config.dataDir))
      : async () => {};
  // openStore checked the master key before any service reads a secret (platform/secrets).
  if (store.secrets?.createdKeyFile) log(`lattice: made the master key ${store.secrets.createdKeyFile}: keep a copy somewhere safe (not beside the backups); without it the stored keys cannot be read`);
  if (store.secrets?.sealed) log(`lattice: encrypted ${store.secrets.sealed} secrets that were stored in clear`);
  const queue = lazyJobQueue(store.db);
  jobQueueGauge(store.db);
  const ctx: ServiceContext = { db: store.db, dataDir: config.dataDir, now: () => new Date(), queue: queue.get, warmUp: true };
  // Queue workers (jobs/background.ts) start once every service answers, and /ready waits for them.
  holdWorkerStarts(queue.get);
  // Rows of ended limit windows are deleted by one process of the cluster.
  const { startLeaderLoop } = await import('./cluster/loop.ts');
  const { closeLimiter, pruneLimitWindows } = await import('./limits/windows.ts');
  const limitPrune = await startLeaderLoop(store.db, 'limit-windows-prune', 10 * 60_000, () => pruneLimitWindows(store.db));
  /** Gives back what the process holds of the cluster's shared budgets (limit slices). */
  const releaseShared = async () => {
    await limitPrune.stop();
    await closeLimiter(store.db);
  };
  const services: RunningService[] = [];
  let building: ServiceApp | null = null;
  try {
    for (const def of selected) {
      const { port, prefix } = config.services[def.id]!;
      const app = await def.build(ctx, { prefix });
      nameService(app, def.id);
      storeGauges(def.id, store.db, { holds: HOLD_SERVICES.has(def.id), quantum: QUANTUM_SERVICES.has(def.id) });
      if (def.id === 'llm') trainingGauge(store.db);
      holdReadiness(app);
      building = app;
      try {
        await app.listen({ port, host: config.host });
      } catch (err) {
        throw listenError(err, def.id, config.host, port);
      }
      building = null;
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const url = `http://${config.host}:${actualPort}${prefix}`;
      services.push({ id: def.id, url, app });
      log(`${def.id.padEnd(12)} ${url}  (docs ${url}/docs)`);
    }
    await releaseWorkerStarts(queue.get);
  } catch (err) {
    // The app that failed to listen has started its own resources (worker pools): close it too.
    await Promise.allSettled([...services.map((s) => s.app.close()), ...(building ? [building.close()] : [])]);
    await queue.stop();
    await releaseShared();
    await stopBackups();
    await store.close();
    throw err;
  }
  for (const s of services) setPhase(s.app, 'ready');
  let stopping: Promise<void> | null = null;
  return {
    store,
    services,
    stop() {
      stopping ??= (async () => {
        for (const s of services) setPhase(s.app, 'draining');
        // A load balancer polling /ready needs a few polls to see the 503 and stop sending;
        // requests keep being served meanwhile. Nobody polling, nobody to wait for.
        if (readinessWatched() && config.drainSeconds > 0) await new Promise((r) => setTimeout(r, config.drainSeconds * 1000));
        await Promise.allSettled(services.map((s) => s.app.close()));
        // Running jobs get a moment to finish; a job cut off is retried after its expiry.
        await queue.stop();
        await releaseShared();
        await stopBackups();
        await store.close();
      })();
      return stopping;
    },
  };
}
