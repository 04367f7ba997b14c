/**
 * The operator's upkeep commands: `lattice backup FILE` and `lattice restore FILE` for the
 * embedded store (PostgreSQL is backed up with pg_dump, see the README), and
 * `lattice keys rotate-master` for the master key that encrypts stored secrets.
 */
import type { Command } from 'commander';
import { printResult, withStore, withStoreOptions, type StoreFlags } from '../lib/store.ts';

/** The data dir and database URL the configuration gives, as `serve` reads them. */
async function storeConfig(flags: StoreFlags): Promise<{ dataDir: string; databaseUrl: string | null }> {
  const [{ loadConfig }, { defaultPorts }] = await Promise.all([import('../../platform/config.ts'), import('../../services/index.ts')]);
  const config = loadConfig({ file: flags.config, flags: { dataDir: flags.dataDir, databaseUrl: flags.databaseUrl }, defaults: defaultPorts });
  return { dataDir: config.dataDir, databaseUrl: config.databaseUrl };
}

const POSTGRES_HINT =
  'the store is a PostgreSQL server (DATABASE_URL): back it up with pg_dump -Fc and bring it back with pg_restore (README, "Backups"); keep the master key with it';

export function register(program: Command): void {
  program
    .command('backup')
    .description('write a consistent copy of the embedded store to FILE (also while lattice serve runs)')
    .argument('<file>', 'the backup file to write (a gzipped tar)')
    .option('--data-dir <dir>', 'data directory of the embedded store (default ./data)')
    .option('--database-url <url>', 'PostgreSQL server (refused: use pg_dump)')
    .option('--config <file>', 'configuration file (default ./lattice.config.json)')
    .option('--json', 'print one JSON object')
    .action(async (file: string, o: StoreFlags & { json?: boolean }) => {
      const { dataDir, databaseUrl } = await storeConfig(o);
      if (databaseUrl) throw Object.assign(new Error(POSTGRES_HINT), { code: 'postgres_store' });
      const { backupEmbedded } = await import('../../platform/storage/backup.ts');
      printResult({ ...(await backupEmbedded({ dataDir, file })) }, o.json);
    });

  // `keys` is made by accounts.ts (registered first, the files load in name order).
  const keys = program.commands.find((c) => c.name() === 'keys') ?? program.command('keys').description('manage API keys and service tokens');
  withStoreOptions(
    keys
      .command('rotate-master')
      .description('re-encrypt every stored secret under a new master key, also while lattice serve runs')
      .requiredOption('--new-key-file <file>', 'the new master key: 32 random bytes in base64 (openssl rand -base64 32)')
      .option('--json', 'print one JSON object'),
  ).action(async (o: StoreFlags & { newKeyFile: string; json?: boolean }) => {
    const { readFileSync } = await import('node:fs');
    const secrets = await import('../../platform/secrets/index.ts');
    let text: string;
    try {
      text = readFileSync(o.newKeyFile, 'utf8');
    } catch (err) {
      throw Object.assign(new Error(`cannot read --new-key-file ${o.newKeyFile}: ${(err as Error).message}`), { code: 'bad_key_file' });
    }
    const newKey = secrets.parseMasterKey(text, `--new-key-file ${o.newKeyFile}`);
    const { dataDir } = await storeConfig(o);
    const fromEnv = Boolean(process.env.LATTICE_MASTER_KEY);
    const result = await withStore(o, (store) =>
      secrets.rotateMasterKey(store.db, newKey, () => {
        // The key file of the data dir is where a running serve (and the next start) reads it.
        if (!fromEnv) secrets.writeKeyFile(secrets.masterKeyFile(dataDir), newKey, { replace: true });
      }),
    );
    if (fromEnv) process.stderr.write('lattice: the key came from LATTICE_MASTER_KEY: set it to the new key for every process before their next start\n');
    printResult({ rewrapped: result.rewrapped }, o.json);
  });

  program
    .command('restore')
    .description('bring a backup back into an empty (or new) data dir')
    .argument('<file>', 'a file written by lattice backup')
    .requiredOption('--data-dir <dir>', 'the data directory to restore into; it must be empty or not exist')
    .option('--json', 'print one JSON object')
    .action(async (file: string, o: { dataDir: string; json?: boolean }) => {
      const { restoreEmbedded } = await import('../../platform/storage/backup.ts');
      printResult({ ...(await restoreEmbedded({ dataDir: o.dataDir, file })) }, o.json);
    });
}
