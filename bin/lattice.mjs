#!/usr/bin/env node
// Entry point of the `lattice` program. Runs the compiled JavaScript in dist/ (made by
// `npm install` / `npm run build`); when that is missing or older than the sources, runs the
// TypeScript sources through tsx instead and says so once on stderr, so that a source edit
// is never silently ignored.
import { fileURLToPath } from 'node:url';
import { staleReason } from '../scripts/build-state.mjs';

/**
 * After a failed command nothing useful is left to do: exit now, so that a pool or timer a
 * half-started command left behind can never keep the process alive (a failed `serve` exits
 * at once instead of hanging).
 */
function exitOnFailure() {
  if (process.exitCode) process.exit();
}

const stale = process.env.LATTICE_FROM_SOURCES === '1' ? 'LATTICE_FROM_SOURCES=1' : staleReason(fileURLToPath(new URL('..', import.meta.url)));
if (stale === null) {
  const { main, commands } = await import('../dist/cli.js');
  await main(process.argv, { commands: commands.map(([, mod]) => mod) });
  exitOnFailure();
} else {
  if (process.env.LATTICE_FROM_SOURCES !== '1') {
    process.stderr.write(`lattice: running from the TypeScript sources (slower start): ${stale}; \`npm run build\` compiles them\n`);
  }
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../cli/main.ts');
  await main(process.argv);
  exitOnFailure();
}
