/**
 * The `lattice` command-line program. Each file in cli/commands/ exports
 * `register(program)` and adds its own commands, so that a new engine or service adds a
 * command without touching this file.
 */
import { readdirSync } from 'node:fs';
import { Command, CommanderError } from 'commander';

export interface CommandModule {
  register(program: Command): void;
}

export async function buildProgram(): Promise<Command> {
  const program = new Command('lattice')
    .description('Lattice: licensing, language-model, quantum and positioning services')
    .showHelpAfterError()
    .exitOverride();
  const dir = new URL('./commands/', import.meta.url);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort();
  for (const file of files) {
    const mod = (await import(new URL(file, dir).href)) as CommandModule;
    mod.register(program);
  }
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = await buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`lattice: ${message}\n`);
    process.exitCode = 1;
  }
}
