/**
 * Starts services: opens the store once (applying every service's migrations, so there is
 * one schema whatever `--only` says), builds each service's app, listens on its port and,
 * on SIGTERM or SIGINT, stops accepting, lets in-flight requests finish, then closes the
 * store cleanly.
 */
import type { LatticeConfig } from './config.ts';
import type { ServiceApp } from './http/app.ts';
import { identityMigrations } from './identity/migrations.ts';
import type { ServiceContext, ServiceDefinition } from './service.ts';
import type { Migration } from './storage/migrate.ts';
import { openStore, type Store } from './storage/store.ts';

export function allMigrations(services: readonly ServiceDefinition[]): Migration[] {
  return [...identityMigrations, ...services.flatMap((s) => s.migrations)];
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
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl ?? undefined,
    migrations: allMigrations(definitions),
    serveSocket: true,
  });
  const ctx: ServiceContext = { db: store.db, dataDir: config.dataDir, now: () => new Date() };
  const selected = definitions.filter((d) => !config.only || config.only.includes(d.id));
  const services: RunningService[] = [];
  try {
    for (const def of selected) {
      const { port, prefix } = config.services[def.id]!;
      const app = await def.build(ctx, { prefix });
      await app.listen({ port, host: config.host });
      const address = app.server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const url = `http://${config.host}:${actualPort}${prefix}`;
      services.push({ id: def.id, url, app });
      log(`${def.id.padEnd(12)} ${url}  (docs ${url}/docs)`);
    }
  } catch (err) {
    await Promise.allSettled(services.map((s) => s.app.close()));
    await store.close();
    throw err;
  }
  let stopping: Promise<void> | null = null;
  return {
    store,
    services,
    stop() {
      stopping ??= (async () => {
        await Promise.allSettled(services.map((s) => s.app.close()));
        await store.close();
      })();
      return stopping;
    },
  };
}
