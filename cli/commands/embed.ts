// `lattice embed`: embeddings of the given texts from the configured (or classic) embedding model.
import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('embed')
    .description('embed texts; prints {model, dimensions, data}')
    .argument('<text...>', 'texts to embed')
    .option('--model <id>', 'embedding model id (default: the configured default, classic-embed)')
    .option('--json', 'print JSON (the only output format)')
    .action(async (texts: string[], opts: { model?: string }) => {
      const { ModelRegistry } = await import('../../engines/language/registry.ts');
      const { loadConfig } = await import('../../engines/language/config.ts');
      const models = new ModelRegistry(loadConfig());
      try {
        const r = await models.embed(texts, opts.model);
        process.stdout.write(`${JSON.stringify({ model: r.model, dimensions: r.dimensions, data: r.data })}\n`);
      } finally {
        await models.close();
      }
    });
}
