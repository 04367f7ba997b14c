import assert from 'node:assert/strict';
import { test } from 'node:test';
import { terms, words } from './tokenize.ts';

test('terms are Porter stems with stop words and one-letter words dropped', () => {
  assert.deepEqual(terms('The flows over the flat plates were measured'), ['flow', 'flat', 'plate', 'measur']);
});

test('inflected forms of a word reduce to the same term', () => {
  assert.equal(new Set(terms('connection connected connecting connections')).size, 1);
});

test('numbers are kept as terms and words keep their order', () => {
  assert.deepEqual(terms('Mach 3 wind tunnel'), ['mach', '3', 'wind', 'tunnel']);
  assert.deepEqual(words('Mach-3 tunnel'), ['mach', '3', 'tunnel']);
});
