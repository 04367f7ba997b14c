import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openPglite } from '../../../platform/storage/database.ts';
import type { EmbeddedDatabase } from '../../../platform/storage/database.ts';
import { classicReranker } from '../rerank/classic.ts';
import { quantumReranker } from '../rerank/quantum.ts';
import { ANALYZER_VERSION } from '../text/analyzer.ts';
import { DEFAULT_MODE, SearchIndex } from './search-index.ts';
import * as store from './store.ts';

const DOCS = [
  { doc_id: 'plate', title: 'Boundary layers', text: 'laminar boundary layer flow over a flat plate at zero incidence' },
  { doc_id: 'heat', text: 'heat transfer to a blunt body in hypersonic flow' },
  { doc_id: 'shell', text: 'buckling of thin cylindrical shells under axial compression' },
  { doc_id: 'wing', text: 'lift distribution of a swept wing in a propeller slipstream' },
  { doc_id: 'noise', text: 'jet noise and its reduction by nozzle design' },
];

let db: EmbeddedDatabase;
let index: SearchIndex;
before(async () => {
  db = await openPglite(null);
  index = await SearchIndex.open(db, { ns: 'test' });
  await index.add(DOCS);
});
after(async () => {
  await db.close();
});

test('bm25 ranks the document sharing the query terms first', async () => {
  const hits = await index.query('cylindrical shell buckling', { mode: 'bm25', topK: 3 });
  assert.equal(hits[0].doc_id, 'shell');
  assert.ok(hits.every((h, i) => i === 0 || h.score <= hits[i - 1].score));
});

test('dense and hybrid modes find a document through its stemmed words', async () => {
  for (const mode of ['dense', 'hybrid'] as const) {
    const hits = await index.query('flows past flat plates', { mode, topK: 2 });
    assert.equal(hits[0].doc_id, 'plate', mode);
  }
});

test('documents added later are searchable, and re-adding a doc_id replaces it', async () => {
  await index.add([{ doc_id: 'late', text: 'supersonic inlet diffuser performance' }]);
  assert.equal((await index.query('inlet diffuser', { mode: 'bm25', topK: 1 }))[0].doc_id, 'late');
  await index.add([{ doc_id: 'late', text: 'panel flutter of skin panels' }]);
  assert.equal((await index.query('inlet diffuser', { mode: 'bm25', topK: 5 })).length, 0);
  assert.equal((await index.query('panel flutter', { mode: 'bm25', topK: 1 }))[0].doc_id, 'late');
  assert.equal(await index.size(), DOCS.length + 1);
});

test('the classic and quantum rerank tiers return the candidates reordered, best first', async () => {
  for (const rerank of [classicReranker(), quantumReranker()]) {
    const hits = await index.query('boundary layer flow', { mode: 'bm25', topK: 3, rerank });
    assert.equal(hits[0].doc_id, 'plate', rerank.name);
    assert.ok(hits.every((h, i) => i === 0 || h.score <= hits[i - 1].score));
  }
});

test('an index in a directory persists across close and reopen', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lx-index-'));
  try {
    const a = await SearchIndex.openDir(dir, { open: openPglite });
    await a.add(DOCS.slice(0, 3));
    await a.close();
    const b = await SearchIndex.openDir(dir, { open: openPglite });
    assert.equal(await b.size(), 3);
    assert.equal((await b.query('hypersonic heat transfer', { topK: 1 }))[0].doc_id, 'heat');
    await b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad documents and options are refused with a clear message', async () => {
  await assert.rejects(index.add([{ doc_id: '', text: 'x' }]), /doc_id must be a non-empty string/);
  await assert.rejects(index.query('x', { topK: 0 }), /top-k must be a positive integer/);
  await assert.rejects(index.query('x', { mode: 'fuzzy' as 'bm25' }), /unknown search mode/);
});

test('by default a query runs the hybrid first stage and the classic rerank', async () => {
  assert.equal(DEFAULT_MODE, 'hybrid');
  const plain = await index.query('laminar flow over plates');
  const named = await index.query('laminar flow over plates', { mode: 'hybrid', rerank: classicReranker() });
  const firstOnly = await index.query('laminar flow over plates', { mode: 'hybrid', rerank: null });
  assert.deepEqual(plain, named);
  assert.notDeepEqual(plain.map((h) => h.score), firstOnly.map((h) => h.score));
  await assert.rejects(index.query('x', { rerankDepth: 0 }), /rerank depth must be a positive integer/);
});

test('a query term in the title counts more than the same term in the body alone', async () => {
  const db2 = await openPglite(null);
  try {
    const idx = await SearchIndex.open(db2, { ns: 'title' });
    await idx.add([
      { doc_id: 'body', title: 'Measurements', text: 'nozzle flow and its noise' },
      { doc_id: 'title', title: 'Nozzle', text: 'measurements of flow and its noise' },
      { doc_id: 'other', text: 'cylindrical shells' },
    ]);
    idx.rm3 = null;
    const ranked = await idx.query('nozzle', { mode: 'bm25', rerank: null });
    assert.deepEqual(ranked.map((h) => h.doc_id), ['title', 'body']);
    idx.titleWeight = 0;
    const flat = await idx.query('nozzle', { mode: 'bm25', rerank: null });
    assert.equal(flat[0].score, flat[1].score, 'without the title field both documents score alike');
  } finally {
    await db2.close();
  }
});

test('RM3 adds the feedback documents\' terms to the query, and can be turned off per query', async () => {
  const expanded = await index.expandQuery('cylindrical shell');
  const own = await index.expandQuery('cylindrical shell', null);
  assert.deepEqual([...own.keys()], ['cylindr', 'shell']);
  for (const t of ['buckl', 'axial', 'compress']) assert.ok((expanded.get(t) ?? 0) > 0, t);
  assert.ok(Math.abs((expanded.get('shell') ?? 0) - 0.6 * 0.5) < 0.2, 'the query keeps most of its weight');
  const withRm3 = await index.query('buckling', { mode: 'bm25', rerank: null, topK: 6 });
  const without = await index.query('buckling', { mode: 'bm25', rerank: null, topK: 6, rm3: false });
  assert.deepEqual(without.map((h) => h.doc_id), ['shell']);
  assert.equal(withRm3[0].doc_id, 'shell');
  assert.notEqual(withRm3[0].score, without[0].score);
});

test('an index written by an earlier analyzer is re-analysed when opened', async () => {
  const db2 = await openPglite(null);
  try {
    const a = await SearchIndex.open(db2, { ns: 'old' });
    await a.add(DOCS);
    // What an index from before the analyzer and the title field looks like.
    await db2.query("DELETE FROM lx_search_title_postings WHERE ns = 'old'");
    await db2.query("UPDATE lx_search_postings SET term = term || 'x' WHERE ns = 'old'");
    await db2.query("DELETE FROM lx_search_meta WHERE ns = 'old' AND key = 'analyzer'");
    assert.equal((await a.query('shell', { mode: 'bm25', rerank: null })).length, 0);
    const b = await SearchIndex.open(db2, { ns: 'old' });
    assert.equal(await store.getMeta(db2, 'old', 'analyzer'), ANALYZER_VERSION);
    assert.equal((await b.query('shell', { mode: 'bm25', rerank: null }))[0].doc_id, 'shell');
    const titled = await db2.query<{ n: number }>("SELECT count(*)::int AS n FROM lx_search_title_postings WHERE ns = 'old' AND doc_id = 'plate'");
    assert.equal(titled[0].n, 2, 'the title "Boundary layers" has its two postings back');
  } finally {
    await db2.close();
  }
});
