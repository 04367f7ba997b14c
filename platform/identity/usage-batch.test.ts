import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { platformMigrations } from '../migrations.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import { createAccount } from './accounts.ts';
import { UsageBatch } from './usage-batch.ts';
import { readCounter } from './usage.ts';

let store: TestDatabase;
before(async () => {
  store = await openTestDatabase(platformMigrations);
});
after(() => store.close());

const key = (accountId: string, counter = 'requests') => ({ accountId, service: 'qcos', counter, period: '2026-11' });
const account = async () => (await createAccount(store.db, { email: `batch-${Math.random().toString(36).slice(2)}@example.test`, name: 'Batch' })).id;

test('counts added are in the store after a flush, summed onto what was there', async () => {
  const id = await account();
  const batch = new UsageBatch(store.db);
  for (let i = 0; i < 5; i++) batch.add(key(id));
  batch.add(key(id, 'other'), 3);
  await batch.flush();
  assert.equal(await readCounter(store.db, key(id)), 5);
  assert.equal(await readCounter(store.db, key(id, 'other')), 3);
  batch.add(key(id), 2);
  await batch.flush();
  assert.equal(await readCounter(store.db, key(id)), 7);
  await batch.close();
});

test('counts are written within about a second with no flush, and at close', async () => {
  const id = await account();
  const batch = new UsageBatch(store.db);
  batch.add(key(id));
  const deadline = Date.now() + 10_000;
  while ((await readCounter(store.db, key(id))) !== 1) {
    assert.ok(Date.now() < deadline, 'the timed write never came');
    await new Promise((r) => setTimeout(r, 100));
  }
  batch.add(key(id), 4);
  await batch.close();
  assert.equal(await readCounter(store.db, key(id)), 5);
  // A count added after close (a request ending while the process stops) is written at once.
  batch.add(key(id), 2);
  const soon = Date.now() + 500;
  while ((await readCounter(store.db, key(id))) !== 7) {
    assert.ok(Date.now() < soon, 'a count added after close was not written');
    await new Promise((r) => setTimeout(r, 20));
  }
});

test("a deleted account's counts are dropped without losing the others written with them", async () => {
  const gone = await account();
  const kept = await account();
  const batch = new UsageBatch(store.db);
  batch.add(key(gone));
  batch.add(key(kept), 2);
  await store.db.query('DELETE FROM accounts WHERE id = $1', [gone]);
  await batch.flush();
  assert.equal(await readCounter(store.db, key(kept)), 2);
  assert.equal(await readCounter(store.db, key(gone)), 0);
  // And the batch keeps working afterwards.
  batch.add(key(kept));
  await batch.close();
  assert.equal(await readCounter(store.db, key(kept)), 3);
});

test('batches of several processes counting the same counters add up exactly, written at the same moment', async () => {
  const ids = [await account(), await account()];
  // One batch per process of a cluster; on PostgreSQL each write goes on its own connection.
  const processes = [new UsageBatch(store.db), new UsageBatch(store.db), new UsageBatch(store.db)];
  for (const [p, batch] of processes.entries()) {
    for (let i = 0; i < 50; i++) batch.add(key(ids[i % 2]!), p + 1);
  }
  await Promise.all(processes.map((b) => b.flush()));
  await Promise.all(processes.map((b) => b.close()));
  // Each process added 25 requests per account, of (p + 1) each: 25 x (1 + 2 + 3).
  assert.equal(await readCounter(store.db, key(ids[0]!)), 150);
  assert.equal(await readCounter(store.db, key(ids[1]!)), 150);
});
