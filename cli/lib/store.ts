/**
 * How CLI commands reach the store: the same data dir / DATABASE_URL options as `serve`.
 * Light to import (commands import it from their `register`): the store, the migrations
 * and the service list are loaded only when a command opens the store.
 */
import type { Command } from 'commander';
import type { Store } from '../../platform/storage/store.ts';

export interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
  config?: string;
}

export function withStoreOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory of the embedded store (default ./data)')
    .option('--database-url <url>', 'PostgreSQL server (default: $DATABASE_URL)')
    .option('--config <file>', 'configuration file (default ./lattice.config.json)');
}

/** Opens the store (through a running `lattice serve` when one owns it), runs `fn`, closes. */
export async function withStore<T>(flags: StoreFlags, fn: (store: Store) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { openStore }, { platformMigrations }, { defaultPorts, services }] = await Promise.all([
    import('../../platform/config.ts'),
    import('../../platform/storage/store.ts'),
    import('../../platform/migrations.ts'),
    import('../../services/index.ts'),
  ]);
  const config = loadConfig({
    file: flags.config,
    flags: { dataDir: flags.dataDir, databaseUrl: flags.databaseUrl },
    defaults: defaultPorts,
  });
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl ?? undefined,
    migrations: [...platformMigrations, ...services.flatMap((s) => s.migrations)],
  });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Prints one JSON object with --json, or the same fields one per line for people. */
export function printResult(result: Record<string, unknown>, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [k, v] of Object.entries(result)) {
    process.stdout.write(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
  }
}
