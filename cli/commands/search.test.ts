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

test('search query defaults to hybrid with the classic rerank; --rerank none and --no-rm3 give the bare first stages; a bad tier is refused', async () => {
  const docs = join(dir, 'docs2.jsonl');
  const queries = join(dir, 'queries2.jsonl');
  writeFileSync(docs, [
    { doc_id: 'a', title: 'Flat plates', text: 'laminar boundary layer on a flat plate' },
    { doc_id: 'b', text: 'buckling of cylindrical shells under axial compression' },
    { doc_id: 'c', text: 'axial compression of thin cylinders' },
    { doc_id: 'd', text: 'jet noise reduction' },
  ].map((d) => JSON.stringify(d)).join('\n'));
  writeFileSync(queries, `${JSON.stringify({ query_id: 'q1', text: 'shell buckling' })}\n`);
  const index = join(dir, 'idx2');
  await run(['search', 'build', '--docs', docs, '--index', index]);
  const query = async (extra: string[]) => JSON.parse(await run(['search', 'query', '--index', index, '--queries', queries, '--top-k', '4', ...extra])).results[0].hits as { doc_id: string; score: number }[];
  const plain = await query([]);
  assert.deepEqual(plain, await query(['--mode', 'hybrid', '--rerank', 'classic']));
  assert.notDeepEqual(plain, await query(['--rerank', 'none']));
  // BM25 alone finds only the document with the query's words; RM3 brings in the one that
  // shares the feedback document's other words ("axial compression").
  const bare = await query(['--mode', 'bm25', '--rerank', 'none', '--no-rm3']);
  assert.deepEqual(bare.map((h) => h.doc_id), ['b']);
  const fed = await query(['--mode', 'bm25', '--rerank', 'none']);
  assert.deepEqual(fed.map((h) => h.doc_id).slice(0, 2), ['b', 'c']);
  await assert.rejects(run(['search', 'query', '--index', index, '--queries', queries, '--rerank', 'fancy']), /--rerank must be classic, quantum_cpu, quantum_gpu or none/);
});

test('embed prints {model, dimensions, data}', async () => {
  const res = JSON.parse(await run(['embed', 'boundary layer', 'shell']));
  assert.equal(res.model, 'classic-embed');
  assert.equal(res.dimensions, 512);
  assert.equal(res.data.length, 2);
});
