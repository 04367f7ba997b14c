import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANALYZER_STOP_WORDS, LUCENE_STOP_WORDS, analyze, tokens } from './analyzer.ts';

// Expected outputs are what Lucene's EnglishAnalyzer (StandardTokenizer, EnglishPossessiveFilter,
// LowerCaseFilter, StopFilter, PorterStemFilter) produces for the same text.
test('analysis follows Lucene EnglishAnalyzer on examples: possessive, lower case, stop words, Porter', () => {
  assert.deepEqual(analyze("The plate's boundary-layer flows", LUCENE_STOP_WORDS), ['plate', 'boundari', 'layer', 'flow']);
  assert.deepEqual(analyze('Experimental investigation of the aerodynamics of a wing in a slipstream', LUCENE_STOP_WORDS), [
    'experiment', 'investig', 'aerodynam', 'wing', 'slipstream',
  ]);
  assert.deepEqual(analyze('generalizations relational ponies caresses hopefulness', LUCENE_STOP_WORDS), ['gener', 'relat', 'poni', 'caress', 'hope']);
});


test('the tokenizer keeps decimals, thousands and contractions whole and splits hyphens and slashes', () => {
  assert.deepEqual(tokens('Mach 3.5, 10,000 ft; /destalling/ x-15 don\'t M2'), ['mach', '3.5', '10,000', 'ft', 'destalling', 'x', '15', "don't", 'm2']);
  // One-letter tokens stay (Lucene drops none by length); numbers are not stemmed.
  assert.deepEqual(analyze('a 3 x 1950s', LUCENE_STOP_WORDS), ['3', 'x', '1950']);
});

test('the possessive filter drops a trailing \'s (either apostrophe) but not a plural\'s apostrophe alone', () => {
  assert.deepEqual(tokens("Mach's wing’s jets'"), ['mach', 'wing', 'jets']);
});

test('the stop set is Lucene\'s 33 words plus the function words of questions', () => {
  assert.equal(LUCENE_STOP_WORDS.size, 33);
  for (const w of LUCENE_STOP_WORDS) assert.ok(ANALYZER_STOP_WORDS.has(w), w);
  assert.deepEqual(analyze('what similarity laws must be obeyed'), ['similar', 'law', 'obei']);
  assert.deepEqual(analyze('what similarity laws must be obeyed', LUCENE_STOP_WORDS), ['what', 'similar', 'law', 'must', 'obei']);
});
