import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = mkdtempSync(join(tmpdir(), 'lx-cli-search-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const bin = fileURLToPath(new URL('../../bin/lattice.mjs', import.meta.url));

/**
 * Runs the real `lattice` program in a child process: replacing process.stdout here would
 * also capture the test runner's own report, which travels on this process's stdout.
 */
function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, DATABASE_URL: '' }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`lattice ${args.join(' ')} failed: ${stderr}`)) : resolve(stdout),
    );
  });
}

test('search build then query prints the contract shape, with and without rerank', async () => {
  const docs = join(dir, 'docs.jsonl');
  const queries = join(dir, 'queries.jsonl');
  writeFileSync(docs, [
    { doc_id: 'a', title: 'Flat plates', text: 'laminar boundary layer on a flat plate' },
    { doc_id: 'b', text: 'buckling of cylindrical shells' },
    { doc_id: 'c', text: 'jet noise reduction' },
  ].map((d) => JSON.stringify(d)).join('\n'));
  writeFileSync(queries, `${JSON.stringify({ query_id: 'q1', text: 'shell buckling' })}\n${JSON.stringify({ query_id: 'q2', text: 'boundary layers' })}\n`);
  const index = join(dir, 'idx');
  const built = JSON.parse(await run(['search', 'build', '--docs', docs, '--index', index]));
  assert.equal(built.documents, 3);
  for (const extra of [[], ['--mode', 'hybrid', '--rerank', 'classic']]) {
    const res = JSON.parse(await run(['search', 'query', '--index', index, '--queries', queries, '--top-k', '2', ...extra]));
    assert.deepEqual(res.results.map((r: { query_id: string }) => r.query_id), ['q1', 'q2']);
    assert.equal(res.results[0].hits[0].doc_id, 'b');
    assert.equal(res.results[1].hits[0].doc_id, 'a');
    assert.ok(res.results[0].hits.length <= 2);
    assert.equal(typeof res.results[0].hits[0].score, 'number');
  }
});

test('embed prints {model, dimensions, data}', async () => {
  const res = JSON.parse(await run(['embed', 'boundary layer', 'shell']));
  assert.equal(res.model, 'classic-embed');
  assert.equal(res.dimensions, 512);
  assert.equal(res.data.length, 2);
});
