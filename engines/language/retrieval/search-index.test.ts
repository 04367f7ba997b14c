import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openPglite } from '../../../platform/storage/database.ts';
import type { EmbeddedDatabase } from '../../../platform/storage/database.ts';
import { classicReranker } from '../rerank/classic.ts';
import { quantumReranker } from '../rerank/quantum.ts';
import { SearchIndex } from './search-index.ts';

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
  assert.equal((await index.query('inlet diffuser', { topK: 1 }))[0].doc_id, 'late');
  await index.add([{ doc_id: 'late', text: 'panel flutter of skin panels' }]);
  assert.equal((await index.query('inlet diffuser', { topK: 5 })).length, 0);
  assert.equal((await index.query('panel flutter', { topK: 1 }))[0].doc_id, 'late');
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
    const a = await SearchIndex.openDir(dir);
    await a.add(DOCS.slice(0, 3));
    await a.close();
    const b = await SearchIndex.openDir(dir);
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
