// Builds the package for plain Node: JavaScript and type declarations in dist/, with the
// sources' `./x.ts` imports rewritten to `./x.js`. Run by `npm pack` (prepack) and `npm run build`.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
// Declarations keep the sources' import paths; a consumer resolves the .js (and its .d.ts).
for (const f of readdirSync(dist).filter((f) => f.endsWith('.d.ts'))) {
  const p = join(dist, f);
  writeFileSync(p, readFileSync(p, 'utf8').replace(/(from\s+['"]\.\/[\w.-]+)\.ts(['"])/g, '$1.js$2'));
}
