import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ndcgAt, recallAt } from './metrics.ts';

const judged = new Map([
  ['a', 3],
  ['b', 1],
]);

test('nDCG is 1 for the ideal ranking and lower when the best document comes second', () => {
  assert.equal(ndcgAt(['a', 'b', 'x'], judged, 10), 1);
  const swapped = ndcgAt(['b', 'a'], judged, 10);
  const expected = (1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3));
  assert.ok(Math.abs(swapped - expected) < 1e-12);
});

test('recall counts judged documents found within the cut-off', () => {
  assert.equal(recallAt(['x', 'a'], judged, 1), 0);
  assert.equal(recallAt(['x', 'a'], judged, 2), 0.5);
});
