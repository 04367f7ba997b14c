import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BillingError,
  getBalance,
  getHold,
  ledgerEntries,
  ledgerSum,
  placeHold,
  releaseHold,
  repairHolds,
  settleHold,
  spentInScope,
  topUp,
} from './index.ts';
import { billingTestbed } from './testing.ts';

const bed = billingTestbed('billing');
const account = bed.account;
const hold = bed.hold;

test('50 concurrent holds against a balance covering 10 reserve exactly 10, and the balance never goes below zero', async () => {
  const id = await account(10_000_000);
  const results = await Promise.allSettled(Array.from({ length: 50 }, () => hold(id, 1_000_000)));
  const placed = results.filter((r) => r.status === 'fulfilled');
  const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
  assert.equal(placed.length, 10);
  assert.equal(refused.length, 40);
  for (const r of refused) assert.equal((r.reason as BillingError).code, 'insufficient_credits');
  const balance = await getBalance(bed.db, id);
  assert.deepEqual(balance, { accountId: id, availableMicros: 0, heldMicros: 10_000_000 });
  assert.equal(await ledgerSum(bed.db, id), 0);
});

test('concurrent holds of uneven sizes never take the balance below zero and the ledger sums to the balance', async () => {
  const id = await account(7_000_000);
  const sizes = Array.from({ length: 40 }, (_, i) => 300_000 + (i % 7) * 100_000);
  const results = await Promise.allSettled(sizes.map((s) => hold(id, s)));
  const held = results.reduce((sum, r, i) => sum + (r.status === 'fulfilled' ? sizes[i]! : 0), 0);
  assert.ok(held <= 7_000_000);
  const balance = await getBalance(bed.db, id);
  assert.equal(balance.availableMicros, 7_000_000 - held);
  assert.ok(balance.availableMicros >= 0);
  assert.ok(balance.availableMicros < 300_000, 'refusals only once even the smallest hold no longer fits');
  assert.equal(await ledgerSum(bed.db, id), balance.availableMicros);
});

test('settling charges what was used, gives the rest back, and writes release and charge rows', async () => {
  const id = await account(5_000_000);
  const h = await hold(id, 2_000_000, { reference: 'req-settle' });
  assert.equal((await getBalance(bed.db, id)).availableMicros, 3_000_000);
  const closed = await settleHold(bed.db, h.id, 750_000);
  assert.deepEqual(closed, { holdId: h.id, status: 'settled', chargedMicros: 750_000, availableMicros: 4_250_000 });
  // Settling twice changes nothing.
  assert.equal(await settleHold(bed.db, h.id, 750_000), null);
  assert.equal(await releaseHold(bed.db, h.id), null);
  const rows = (await ledgerEntries(bed.db, id)).map((e) => [e.kind, e.amountMicros, e.reference]);
  assert.deepEqual(rows, [
    ['charge', -750_000, 'req-settle'],
    ['release', 2_000_000, 'req-settle'],
    ['hold', -2_000_000, 'req-settle'],
    ['topup', 5_000_000, null],
  ]);
  assert.equal(await ledgerSum(bed.db, id), 4_250_000);
});

test('a charge is capped at its hold', async () => {
  const id = await account(1_000_000);
  const h = await hold(id, 400_000);
  const closed = await settleHold(bed.db, h.id, 9_000_000);
  assert.equal(closed?.chargedMicros, 400_000);
  assert.equal((await getBalance(bed.db, id)).availableMicros, 600_000);
});

test('a release gives the whole hold back and charges nothing', async () => {
  const id = await account(1_000_000);
  const h = await hold(id, 1_000_000);
  await assert.rejects(hold(id, 1), (err: BillingError) => err.code === 'insufficient_credits');
  const closed = await releaseHold(bed.db, h.id);
  assert.equal(closed?.chargedMicros, 0);
  assert.equal((await getBalance(bed.db, id)).availableMicros, 1_000_000);
  assert.equal((await getHold(bed.db, h.id))?.status, 'released');
});

test('a hold with a limit scope counts against both, concurrently, and a refusal leaves neither changed', async () => {
  const id = await account(10_000_000);
  const limit = { scope: `key:${id}`, maxMicros: 3_000_000 };
  const results = await Promise.allSettled(Array.from({ length: 20 }, () => hold(id, 1_000_000, { limit })));
  const placed = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Awaited<ReturnType<typeof placeHold>>>[];
  assert.equal(placed.length, 3);
  for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as BillingError).code, 'limit_reached');
  assert.equal(await spentInScope(bed.db, limit.scope), 3_000_000);
  assert.equal((await getBalance(bed.db, id)).availableMicros, 7_000_000);
  // Settling frees the unused part of the limit too.
  await settleHold(bed.db, placed[0]!.value.id, 200_000);
  assert.equal(await spentInScope(bed.db, limit.scope), 2_200_000);
  // A limit that fits but a balance that does not: insufficient credits, and the limit's count is rolled back.
  const poor = await account(500_000);
  const poorLimit = { scope: `key:${poor}`, maxMicros: 10_000_000 };
  await assert.rejects(hold(poor, 1_000_000, { limit: poorLimit }), (err: BillingError) => err.code === 'insufficient_credits');
  assert.equal(await spentInScope(bed.db, poorLimit.scope), 0);
  // A single hold above the limit is refused even when nothing was spent yet.
  await assert.rejects(hold(poor, 100_000, { limit: { scope: 'key:tiny', maxMicros: 50_000 } }), (err: BillingError) => err.code === 'limit_reached');
});

test('holds of an account without any top-up are refused, and amounts must be positive whole micro-dollars', async () => {
  const id = await account();
  await assert.rejects(hold(id, 1), (err: BillingError) => err.code === 'insufficient_credits');
  await assert.rejects(hold(id, 0), (err: BillingError) => err.code === 'invalid_amount');
  await assert.rejects(hold(id, 1.5), (err: BillingError) => err.code === 'invalid_amount');
  await assert.rejects(topUp(bed.db, { accountId: id, micros: -5 }), (err: BillingError) => err.code === 'invalid_amount');
  await assert.rejects(topUp(bed.db, { accountId: id, micros: 0 }), (err: BillingError) => err.code === 'invalid_amount');
});

test('repair releases expired holds of dead work, settles finished work, and leaves live work alone', async () => {
  const id = await account(10_000_000);
  const service = `repair-${id}`;
  const past = new Date(Date.now() - 1000);
  const future = new Date(Date.now() + 600_000);
  const dead = await hold(id, 1_000_000, { service, expiresAt: past, reference: 'dead' });
  const finished = await hold(id, 1_000_000, { service, expiresAt: future, reference: 'finished' });
  const running = await hold(id, 1_000_000, { service, expiresAt: future, reference: 'running' });
  const other = await hold(id, 1_000_000, { service: 'another', expiresAt: past });
  const result = await repairHolds(bed.db, {
    service,
    resolve: (h, expired) => (h.reference === 'finished' ? { settle: 300_000 } : expired ? { release: true } : null),
  });
  assert.deepEqual(result, { settled: 1, released: 1, kept: 1 });
  assert.equal((await getHold(bed.db, dead.id))?.status, 'released');
  assert.equal((await getHold(bed.db, finished.id))?.chargedMicros, 300_000);
  assert.equal((await getHold(bed.db, running.id))?.status, 'open');
  assert.equal((await getHold(bed.db, other.id))?.status, 'open');
  // Without a resolver only expired holds are touched.
  assert.deepEqual(await repairHolds(bed.db, { service: 'another' }), { settled: 0, released: 1, kept: 0 });
  assert.equal((await getBalance(bed.db, id)).availableMicros, 10_000_000 - 300_000 - 1_000_000);
});

test('concurrent settles and repairs of one hold close it exactly once', async () => {
  const id = await account(2_000_000);
  const h = await hold(id, 1_000_000, { service: 'race', expiresAt: new Date(Date.now() - 1) });
  const outcomes = await Promise.all([
    settleHold(bed.db, h.id, 400_000),
    releaseHold(bed.db, h.id),
    repairHolds(bed.db, { service: 'race' }),
    settleHold(bed.db, h.id, 400_000),
  ]);
  const closes = outcomes.filter((o) => o && 'holdId' in o).length + (outcomes[2] as { released: number }).released;
  assert.equal(closes, 1);
  const balance = await getBalance(bed.db, id);
  assert.equal(balance.heldMicros, 0);
  assert.equal(await ledgerSum(bed.db, id), balance.availableMicros);
});
