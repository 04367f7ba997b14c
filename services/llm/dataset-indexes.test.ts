/**
 * The per-app cache of open dataset indexes (DatasetIndexes) against another process's writes:
 * such a write reaches this app only as the dataset row's `revision`, so an index opened at an
 * older revision must never answer once the row says newer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DatasetIndexes } from './datasets.ts';
import { startLlm, type LlmTest } from './testing.ts';

let s: LlmTest;
before(async () => {
  s = await startLlm();
});
after(async () => {
  await s.close();
});

test('an index opened at one revision is reused for it and reopened for a newer one, as another process\'s upload leaves it', async () => {
  const indexes = new DatasetIndexes(s.t.db);
  const d = { id: 'ds_revision_test', revision: 1 };
  const first = indexes.index(d);
  assert.equal(indexes.index(d), first, 'the same revision reuses the open index');
  const newer = indexes.index({ ...d, revision: 2 });
  assert.notEqual(newer, first, 'a newer revision opens the index again');
  assert.equal(indexes.index({ ...d, revision: 2 }), newer);
  indexes.forget(d.id);
  assert.notEqual(indexes.index({ ...d, revision: 2 }), newer, 'a forgotten dataset opens afresh');
  await Promise.all([first, newer]);
});
