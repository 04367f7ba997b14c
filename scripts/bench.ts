/**
 * `npm run bench`: runs every benchmark in scripts/bench/ (or those named on the command
 * line, e.g. `npm run bench -- quantum`) one after another and prints their figures.
 * Each benchmark measures its own baseline in the same run and reports ratios against it.
 */
import { readdirSync } from 'node:fs';

const dir = new URL('./bench/', import.meta.url);
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

for (const file of files) {
  console.log(`\n=== ${file.replace(/\.ts$/, '')} ===`);
  const mod = (await import(new URL(file, dir).href)) as { run(): Promise<void> };
  await mod.run();
}
