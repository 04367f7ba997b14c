import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tableRowsAsDocs } from './tables.ts';

test('each table row becomes a document of column: value pairs titled by the table', () => {
  const docs = tableRowsAsDocs('engines', ['name', 'thrust_kn', 'notes'], [['J79', 52.8, null], ['F404', 79, { ab: true }]]);
  assert.deepEqual(docs[0], { doc_id: 'engines:0', title: 'engines', text: 'name: J79; thrust_kn: 52.8; notes: ' });
  assert.equal(docs[1].text, 'name: F404; thrust_kn: 79; notes: {"ab":true}');
});

test('rows of the wrong width and bad headers are refused with the row named', () => {
  assert.throws(() => tableRowsAsDocs('t', ['a', 'b'], [['x', 'y'], ['z']]), /row 1 must have 2 values/);
  assert.throws(() => tableRowsAsDocs('t', [], []), /columns must be a non-empty list/);
  assert.throws(() => tableRowsAsDocs('', ['a'], []), /table_name/);
});
