#!/usr/bin/env node
// Runs every *.test.ts file of the project with node's test runner.
//
// Node 20 does not expand globs and a bare `node --test` finds no .ts file, so the file
// list is built here. The whole suite runs on the embedded store (PGlite). When a
// PostgreSQL server is reachable (DATABASE_URL, or the local server CI provides), the suites
// of everything that stores data run a second time against it (pgFiles below).
//
// The test files run compiled, as the benchmarks do (scripts/build.mjs): one esbuild pass
// (about a second) writes each to .tmp/test/ with the code it imports, and every test process
// then starts without a TypeScript loader. Through tsx each of the 350-odd test processes
// transformed its own module graph: the suite took 657-687 s on the embedded store here,
// compiled 525 s. Stack traces point at the sources (source maps). LATTICE_TEST_FROM_SOURCES=1
// runs the sources through tsx instead.
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const roots = ['platform', 'services', 'engines', 'packages', 'cli', 'scripts'];
const filter = process.argv.slice(2);

function findTests(dir, out = []) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) findTests(full, out);
    // Paths with '/' whatever the platform: the selections below and the compiled names read them.
    else if (name.endsWith('.test.ts')) out.push(relative(root, full).split(sep).join('/'));
  }
  return out;
}

// Tests that spawn `lattice` run the compiled program, as a user does: build it first when
// dist/ is missing or older than the sources (about a second).
// Compiled test files start their worker threads from dist/ too (platform/threads.ts).
let built = true;
try {
  const { buildIfStale } = await import('./build.mjs');
  await buildIfStale();
} catch (err) {
  built = false;
  console.error(`build failed, tests run the TypeScript sources: ${err instanceof Error ? err.message : String(err)}`);
}

const all = roots.flatMap((r) => findTests(join(root, r))).sort();
const selected = filter.length ? all.filter((f) => filter.some((p) => f.includes(p))) : all;
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

/**
 * Compiles the test files into .tmp/test/ (one file each, named by its path with `__` for `/`,
 * sharing chunks); returns the compiled path of each source, or null when they cannot be
 * compiled (the sources then run through tsx, and the reason is printed).
 */
async function compileTests(files) {
  if (process.env.LATTICE_TEST_FROM_SOURCES === '1' || !built) return null;
  const outdir = join(root, '.tmp/test');
  const nameOf = (f) => f.replace(/\.ts$/, '').replaceAll('/', '__');
  try {
    const { compile } = await import('./build.mjs');
    rmSync(outdir, { recursive: true, force: true });
    await compile({ entryPoints: Object.fromEntries(files.map((f) => [nameOf(f), join(root, f)])), outdir });
  } catch (err) {
    console.error(`test files not compiled, running the sources through tsx: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
  return new Map(files.map((f) => [f, relative(root, join(outdir, `${nameOf(f)}.js`))]));
}

/** The signal this script was stopped with, once one came: no further pass starts. */
let stoppedBy = null;

/**
 * Runs one pass in a child process. A SIGTERM, SIGINT or SIGHUP sent to this script (a CI
 * job cancelled, `kill` of `npm test`) goes on to the test runner, whose test processes end
 * with it, instead of leaving it running without a parent.
 */
function run(files, env, label) {
  console.log(`\n# ${label}: ${files.length} test files${compiled ? '' : ' (sources, through tsx)'}`);
  const loader = compiled ? ['--enable-source-maps'] : ['--import', 'tsx'];
  const testFiles = compiled ? files.map((f) => compiled.get(f)) : files;
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...loader, '--test', '--test-concurrency=2', '--test-reporter=spec', ...testFiles],
      { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } },
    );
    const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'];
    const forward = (signal) => {
      stoppedBy = signal;
      child.kill(signal);
    };
    for (const s of signals) process.on(s, forward);
    child.on('error', (err) => {
      console.error(`the test runner did not start: ${err.message}`);
      resolve(1);
    });
    child.on('exit', (code) => {
      for (const s of signals) process.off(s, forward);
      resolve(code ?? 1);
    });
  });
}

const compiled = await compileTests(selected);

const embeddedEnv = { DATABASE_URL: '' };
let status = await run(selected, embeddedEnv, 'embedded store (PGlite)');

const pgUrl = process.env.LATTICE_TEST_POSTGRES_URL ?? process.env.DATABASE_URL ?? '';
// Page tests drive a browser over the same routes the API tests cover on both stores: they
// run once, on the embedded store (a browser pass costs about 35 s a page on 2 cores).
// Three more run once: their time is the engines' (GNSS scenarios in simulated time, LoRA
// training, model inference: 52 s of 333 in the PostgreSQL pass), and their statements are the
// ones the other suites of those services send; the cross-process cases of the same services
// (nav/cluster, llm/training-cluster, llm/training/lease) run against the server in both passes.
const ENGINE_BOUND = new Set(['services/nav/scenarios.test.ts', 'services/llm/training.test.ts', 'services/llm/inference.test.ts']);
const pgFiles = selected.filter((f) => !f.endsWith('page.test.ts') && !ENGINE_BOUND.has(f) && /^(platform\/storage|platform\/limits|platform\/cluster|platform\/identity|platform\/jobs|platform\/billing|platform\/evidence|platform\/webhooks|platform\/quantum-jobs|services\/qcos\/|services\/licensing|services\/llm-gateway|services\/chat\/|services\/core\/|services\/llm\/|services\/nav\/|services\/runtime\/|services\/suppliers\/|services\/platform\/|platform\/licenses\/|packages\/)/.test(f));
if (stoppedBy) {
  console.log(`\n# stopped by ${stoppedBy}: the PostgreSQL pass does not start`);
} else if (pgUrl && pgFiles.length) {
  status = (await run(pgFiles, { DATABASE_URL: pgUrl }, `PostgreSQL (${pgUrl.replace(/\/\/[^@]*@/, '//')})`)) || status;
} else if (pgFiles.length) {
  console.log('\n# PostgreSQL pass not run: set DATABASE_URL or LATTICE_TEST_POSTGRES_URL to a server');
}
process.exit(stoppedBy ? status || 1 : status);
