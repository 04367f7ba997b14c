/** `lattice serve`: starts every service (or `--only` some) on its port, until SIGTERM/SIGINT. */
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('serve')
    .description('start the services on their ports (all of them unless --only is given)')
    .option('--only <ids>', 'comma-separated service ids, e.g. licensing,licensing-c')
    .option('--data-dir <dir>', 'data directory of the embedded store (default ./data)')
    .option('--database-url <url>', 'PostgreSQL server instead of the embedded store')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--config <file>', 'configuration file (default ./lattice.config.json)')
    .action(async (opts: { only?: string; dataDir?: string; databaseUrl?: string; host?: string; config?: string }) => {
      const [{ loadConfig }, { startLattice }, { defaultPorts, services }] = await Promise.all([
        import('../../platform/config.ts'),
        import('../../platform/server.ts'),
        import('../../services/index.ts'),
      ]);
      const config = loadConfig({ file: opts.config, flags: opts, defaults: defaultPorts });
      const lattice = await startLattice(config, services);
      process.stdout.write(`lattice: store ${lattice.store.mode === 'postgres' ? 'PostgreSQL' : `embedded in ${config.dataDir}`}\n`);
      await new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
          process.stdout.write(`lattice: ${signal}, finishing in-flight requests\n`);
          lattice.stop().then(resolve, (err: unknown) => {
            process.stderr.write(`lattice: shutdown failed: ${String(err)}\n`);
            process.exitCode = 1;
            resolve();
          });
        };
        process.once('SIGTERM', () => shutdown('SIGTERM'));
        process.once('SIGINT', () => shutdown('SIGINT'));
      });
    });
}
