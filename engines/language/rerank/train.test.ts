import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CRANFIELD_DIR } from '../builtin/corpus.ts';
import { loadCranfield } from '../eval/cranfield.ts';
import { CLASSIC_WEIGHTS_PATH } from './classic.ts';
import { trainLinearRanker } from './linear-ranker.ts';
import { splitQueries, trainOnSplit } from './train.ts';
import type { JudgedCandidates } from './train.ts';

const { queries } = loadCranfield(CRANFIELD_DIR);

test('the split of Cranfield\'s 225 queries is two disjoint halves that cover them all', () => {
  const { train, heldOut } = splitQueries(queries);
  assert.equal(train.length, 113);
  assert.equal(heldOut.length, 112);
  const trainIds = new Set(train.map((q) => q.query_id));
  for (const q of heldOut) assert.equal(trainIds.has(q.query_id), false, `held-out query ${q.query_id} is in training`);
  assert.equal(new Set([...trainIds, ...heldOut.map((q) => q.query_id)]).size, queries.length);
  assert.deepEqual(train.slice(0, 3).map((q) => q.query_id), ['1', '3', '5']);
  assert.throws(() => splitQueries([queries[0], queries[0]]), /appears twice/);
});

test('the shipped classic weights were learned on training queries only', () => {
  const shipped = JSON.parse(readFileSync(CLASSIC_WEIGHTS_PATH, 'utf8')) as { train_queries: string[] };
  const heldOut = new Set(splitQueries(queries).heldOut.map((q) => q.query_id));
  assert.equal(shipped.train_queries.length, 113);
  for (const id of shipped.train_queries) assert.equal(heldOut.has(id), false, `held-out query ${id} trained the shipped weights`);
});

test('trainOnSplit learns from the training half alone: the held-out half\'s judgements do not move the weights', () => {
  // Two features; training queries favour feature 0, held-out ones feature 1.
  const q = (id: string, favour: 0 | 1): JudgedCandidates => ({
    query_id: id,
    doc_ids: ['a', 'b'],
    candidates: [],
    features: [[1, 0], [0, 1]],
    gains: favour === 0 ? [2, 0] : [0, 2],
  });
  const data = [q('1', 0), q('2', 1), q('3', 0), q('4', 1)];
  const fit = trainOnSplit(data, new Map());
  assert.deepEqual(fit.train, ['1', '3']);
  assert.deepEqual(fit.heldOut, ['2', '4']);
  assert.deepEqual(fit.model, trainLinearRanker([data[0], data[2]]));
  assert.notDeepEqual(fit.model, trainLinearRanker(data));
  assert.ok(fit.model.weights[0] > fit.model.weights[1]);
});
