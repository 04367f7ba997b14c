#!/usr/bin/env node
// `npm run bench`: runs every benchmark in scripts/bench/ (or those named on the command line,
// e.g. `npm run bench -- quantum`) one after another and prints their figures. Each benchmark
// measures its own baseline in the same run and reports ratios against it.
//
// The benchmarks run compiled, as the `lattice` program does (scripts/build.mjs): the code they
// measure is what a user runs from dist/, worker threads included, not the TypeScript sources
// through tsx, whose transpiled code names every closure it creates on every call. The
// compiled benchmarks go to .tmp/bench/ (about a second). LATTICE_FROM_SOURCES=1 runs them
// from the sources through tsx instead.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfStale, compile } from './build.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const wanted = process.argv.slice(2);
const names = readdirSync(join(root, 'scripts/bench'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((n) => wanted.length === 0 || wanted.some((w) => n.includes(w)))
  .sort();

/** Each benchmark's module, by name, loaded when its turn comes. */
async function loaders() {
  if (process.env.LATTICE_FROM_SOURCES === '1') {
    const { register } = await import('tsx/esm/api');
    register();
    return Object.fromEntries(names.map((n) => [n, () => import(pathToFileURL(join(root, `scripts/bench/${n}.ts`)).href)]));
  }
  // Worker threads start from dist/ (platform/threads.ts), so it must be current.
  await buildIfStale({ quiet: true });
  const outdir = join(root, '.tmp/bench');
  const entry = `export const benches = {${names.map((n) => `${JSON.stringify(n)}: () => import('./scripts/bench/${n}.ts')`).join(', ')}};`;
  await compile({ entryPoints: { bench: 'lattice-bench-entry' }, outdir, virtual: { 'lattice-bench-entry': entry } });
  return (await import(pathToFileURL(join(outdir, 'bench.js')).href)).benches;
}

const load = await loaders();
for (const name of names) {
  console.log(`\n=== ${name} ===`);
  await (await load[name]()).run();
}
