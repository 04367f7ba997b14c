/** How CLI commands reach the store: the same data dir / DATABASE_URL options as `serve`. */
import type { Command } from 'commander';
import { loadConfig } from '../../platform/config.ts';
import { allMigrations } from '../../platform/server.ts';
import { openStore, type Store } from '../../platform/storage/store.ts';
import { defaultPorts, services } from '../../services/index.ts';

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
  const config = loadConfig({
    file: flags.config,
    flags: { dataDir: flags.dataDir, databaseUrl: flags.databaseUrl },
    defaults: defaultPorts,
  });
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl ?? undefined,
    migrations: allMigrations(services),
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
