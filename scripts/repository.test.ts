/**
 * The repository stands alone: a clone into an empty folder must pass its tests, so no
 * source file may name a path outside the checkout: a relative path that climbs above the
 * repository root (a sibling folder of the checkout, say), or an absolute path of this machine.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = /\.(ts|mts|cts|mjs|cjs|js|json|sh)$/;
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'data', '.tmp', 'bench-results']);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const full = join(dir, name);
    const st = statSync(full);
    if (st.isDirectory()) sources(full, out);
    else if (SOURCE.test(name) && name !== 'package-lock.json') out.push(full);
  }
  return out;
}

// Absolute paths that only exist on one machine. `/tmp` and `/dev` are everyone's, and
// URLs (`https://host/...`) are not paths.
const ABSOLUTE = /(?<![\w.:/-])(\/work\/|\/home\/[a-z_][\w-]*\/|\/root\/|\/Users\/[^/\s'"`]+\/|[A-Z]:\\\\Users\\\\)/;
// A quoted relative path: what it names is resolved against the file's folder.
const RELATIVE = /['"`]((?:\.\.\/)+[^'"`\s$]*)/g;

/** The problems in one file's text, as `line: what` strings. */
export function outsidePaths(file: string, text: string): string[] {
  const problems: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const abs = ABSOLUTE.exec(line);
    if (abs) problems.push(`${i + 1}: names the absolute path ${abs[1]}`);
    for (const m of line.matchAll(RELATIVE)) {
      const target = resolve(dirname(file), m[1]!);
      if (target !== root.replace(/\/$/, '') && !target.startsWith(root.endsWith(sep) ? root : root + sep)) {
        problems.push(`${i + 1}: ${m[1]} leaves the repository`);
      }
    }
  });
  return problems;
}

test('no source file names a path outside the repository', () => {
  const files = sources(root);
  assert.ok(files.length > 100, `found ${files.length} source files`);
  const found: string[] = [];
  for (const file of files) {
    if (file === fileURLToPath(import.meta.url)) continue; // this file spells the patterns out
    for (const p of outsidePaths(file, readFileSync(file, 'utf8'))) found.push(`${relative(root, file)}:${p}`);
  }
  assert.deepEqual(found, []);
});

test('the check catches a sibling folder, a climb above the root and a machine path', () => {
  const inCli = join(root, 'cli/commands/x.test.ts');
  // Spelled in two parts: the test runner compiles this file, and its compiler rewrites that expression wherever it appears.
  const metaUrl = ['import', 'meta', 'url'].join('.');
  assert.equal(outsidePaths(inCli, `new URL('../../fixtures/a.qasm', ${metaUrl})`).length, 0);
  assert.equal(outsidePaths(inCli, `new URL('../../../sibling/fixtures/a.qasm', ${metaUrl})`).length, 1);
  assert.equal(outsidePaths(inCli, "readFileSync('../../../elsewhere/a.txt')").length, 1);
  assert.equal(outsidePaths(inCli, "const data = '/work/sibling/fixtures';").length, 1);
  assert.equal(outsidePaths(inCli, "const home = '/home/alice/models';").length, 1);
  assert.equal(outsidePaths(inCli, "fetch('https://example.test/work/x'); mkdtempSync('/tmp/x')").length, 0);
});
