#!/usr/bin/env node
// Compiles the TypeScript tree the `lattice` program runs to JavaScript in dist/, so that a
// start does no transpiling: `npm install` runs it (postinstall), `npm test` runs it when
// dist/ is stale, and `npm run build` runs it by hand.
//
// One esbuild pass with code splitting: dist/cli.js holds the command-line program and the
// `register()` of every command file; whatever a command or service loads with
// `await import()` (engines, Fastify, the store, each service's app) becomes its own chunk,
// loaded only when that command runs. Packages stay in node_modules (not bundled), except
// those in BUNDLED: TypeBox is 370 small modules that every service loads at start, and
// resolving and reading them one by one cost more start-up than all the schemas they build.
//
// Sources find their data files (models, workers, native addons, fixtures) relative to
// `import.meta.url`; every output file sits in dist/ itself, so each source's
// `import.meta.url` is rewritten to the URL of that source file, computed from the chunk's
// own URL: the program keeps working wherever the checkout is.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MANIFEST, MANIFEST_VERSION, staleReason } from './build-state.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const posix = (p) => p.split(sep).join('/');

/** Source files in cli/commands/ that register commands (tests excluded). */
export function commandFiles() {
  return readdirSync(join(root, 'cli/commands'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .sort();
}

/**
 * Worker threads, each compiled to dist/worker-<name>.js beside the program's chunks (sharing
 * them), so that a thread of the compiled program starts without a TypeScript loader.
 * platform/threads.ts picks these files when the program runs from dist/.
 */
export const WORKER_ENTRIES = {
  'quantum-jobs': 'platform/quantum-jobs/worker.ts',
  statevector: 'engines/quantum/statevector/worker.ts',
  training: 'services/llm/training/thread.ts',
};

/** Packages compiled into the chunks instead of loaded from node_modules (see above). */
const BUNDLED = new Set(['typebox']);

/** A bare import's package name: `typebox/value` is `typebox`, `@fastify/static/x` is `@fastify/static`. */
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/**
 * Compiles `entryPoints` (name -> source path or virtual module name) into `outdir` with the
 * options every compiled output of this tree shares (the program, its worker threads, the
 * benchmarks): ESM for Node 20 with code splitting, packages left in node_modules except the
 * BUNDLED ones, each source's import.meta.url pointing at the source file as seen from
 * `finalDir` (where the files will live; `outdir` may be a folder renamed there later), and
 * LATTICE_COMPILED_BUILD set. `virtual` maps a module name to generated source text.
 */
export async function compile({ entryPoints, outdir, finalDir = outdir, virtual = {} }) {
  const esbuild = await import('esbuild');
  const rewriteMetaUrl = {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(ts|mts)$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        let text = readFileSync(args.path, 'utf8');
        if (text.includes('import.meta.url')) {
          const fromOut = posix(relative(finalDir, args.path));
          text = text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromOut)}, import.meta.url).href`);
        }
        return { contents: text, loader: 'ts' };
      });
    },
  };
  // What `packages: 'external'` does, for every package but the BUNDLED ones.
  const externalPackages = {
    name: 'external-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED.has(packageOf(args.path)) ? undefined : { path: args.path, external: true }));
    },
  };
  // Generated entries (the command-line program's list of commands, the benchmarks' list).
  const virtualModules = {
    name: 'virtual-modules',
    setup(b) {
      for (const [name, contents] of Object.entries(virtual)) {
        const filter = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
        b.onResolve({ filter }, () => ({ path: name, namespace: 'virtual' }));
        b.onLoad({ filter, namespace: 'virtual' }, () => ({ contents, resolveDir: root, loader: 'ts' }));
      }
    },
  };
  return esbuild.build({
    entryPoints,
    outdir,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'silent',
    // Code of the compiled program knows it is (platform/threads.ts).
    define: { 'process.env.LATTICE_COMPILED_BUILD': '"1"' },
    plugins: [virtualModules, externalPackages, rewriteMetaUrl],
  });
}

export async function build({ quiet = false } = {}) {
  const started = Date.now();
  const out = join(root, 'dist');
  const tmp = join(root, `dist.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  // Anything written after this instant counts as newer than the build.
  const builtAt = Date.now();
  const commands = commandFiles();
  const entry = [
    "export { main } from './cli/main.ts';",
    ...commands.map((f, i) => `import * as c${i} from './cli/commands/${f}';`),
    `export const commands = [${commands.map((f, i) => `['${f}', c${i}]`).join(', ')}];`,
  ].join('\n');
  const workers = Object.fromEntries(Object.entries(WORKER_ENTRIES).map(([name, src]) => [`worker-${name}`, join(root, src)]));
  const result = await compile({
    entryPoints: { cli: 'lattice-cli-entry', ...workers },
    outdir: tmp,
    finalDir: out,
    virtual: { 'lattice-cli-entry': entry },
  });
  for (const w of result.warnings) {
    // Dynamic imports with computed paths (the tsx-mode command loader) stay as they are.
    if (!quiet && !/import\(\) expression|cannot be analyzed/.test(w.text)) process.stderr.write(`build: warning: ${w.text}\n`);
  }
  const inputs = Object.keys(result.metafile.inputs)
    .filter((p) => !p.startsWith('node_modules/') && !p.includes('lattice-cli-entry'))
    .map(posix)
    .sort();
  const dirs = ['cli/commands', 'services', 'scripts/build.mjs', 'package.json'];
  writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify({ version: MANIFEST_VERSION, builtAt, dirs, inputs }, null, 1)}\n`);
  writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n');
  // Swap in one step, so that a program starting meanwhile sees the old or the new build.
  const old = join(root, `dist.old-${process.pid}`);
  try {
    renameSync(out, old);
  } catch {}
  try {
    renameSync(tmp, out);
  } catch (err) {
    // Another build finished first and its dist/ is as new as ours.
    rmSync(tmp, { recursive: true, force: true });
    if (!['ENOTEMPTY', 'EEXIST'].includes(err.code)) throw err;
  }
  rmSync(old, { recursive: true, force: true });
  if (!quiet) process.stdout.write(`build: dist/ from ${inputs.length} sources in ${Date.now() - started} ms\n`);
  return { inputs: inputs.length };
}

/** Builds when dist/ is missing or older than the sources; true when it built. */
export async function buildIfStale(options) {
  if (staleReason(root) === null) return false;
  await build(options);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const ifStale = process.argv.includes('--if-stale');
  try {
    if (ifStale) await buildIfStale();
    else await build();
  } catch (err) {
    process.stderr.write(`build: ${err instanceof Error ? err.message : String(err)}\n`);
    // An install must not fail for this: bin/lattice.mjs runs the sources when dist/ is missing.
    process.exitCode = process.env.LATTICE_BUILD_REQUIRED === '1' ? 1 : 0;
  }
}
