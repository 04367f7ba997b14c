/**
 * The `lattice` command-line program. Each file in cli/commands/ exports
 * `register(program)` and adds its own commands, so that a new engine or service adds a
 * command without touching this file. `register` must stay light: a command imports its
 * heavy modules (engines, the store, services) inside its action with `await import()`, so
 * that `lattice --help` and every small command start fast.
 *
 * Errors are reported here for every command: one line `lattice: <message>` on stderr and
 * exit code 1, or, when the command line has `--json`, one JSON object
 * `{"error": {"message", "code"?}}` on stdout (still exit code 1), so that a script reading
 * `--json` output always reads JSON.
 */
import { readdirSync } from 'node:fs';
import { Command, CommanderError } from 'commander';

export interface CommandModule {
  register(program: Command): void;
}

export interface MainOptions {
  /** The command modules, already loaded (the compiled program passes them); by default every file in cli/commands/. */
  commands?: readonly CommandModule[];
}

async function sourceCommands(): Promise<CommandModule[]> {
  const dir = new URL('./commands/', import.meta.url);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .sort();
  return Promise.all(files.map(async (file) => (await import(new URL(file, dir).href)) as CommandModule));
}

export async function buildProgram(options: MainOptions = {}, onError?: (text: string) => void): Promise<Command> {
  const program = new Command('lattice')
    .description('Lattice: licensing, language-model, quantum and positioning services')
    .exitOverride();
  if (onError) program.configureOutput({ outputError: (text) => onError(text) });
  else program.showHelpAfterError();
  for (const mod of options.commands ?? (await sourceCommands())) mod.register(program);
  return program;
}

/** Whether the command line asks for JSON output (an option, not an argument after `--`). */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

function errorJson(message: string, code?: string): string {
  return `${JSON.stringify({ error: { message, ...(code ? { code } : {}) } })}\n`;
}

export async function main(argv: string[], options: MainOptions = {}): Promise<void> {
  const json = wantsJson(argv);
  let commanderMessage = '';
  const program = await buildProgram(options, json ? (text) => (commanderMessage += text) : undefined);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      if (json && err.exitCode !== 0) {
        const message = (commanderMessage || err.message).trim().replace(/^error: /, '');
        process.stdout.write(errorJson(message, err.code.replace(/^commander\./, '')));
      }
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : undefined;
    if (json) process.stdout.write(errorJson(message, code));
    else process.stderr.write(`lattice: ${message}\n`);
    process.exitCode = 1;
  }
}
