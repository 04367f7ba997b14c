import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BillingError,
  captureFromHold,
  captureFromHolds,
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

const bed = billingTestbed('capture');
const account = bed.account;
const hold = bed.hold;

test('a capture charges part of an open hold: one charge row per piece of work, the hold shrinks, the balance stays, the ledger sums to it', async () => {
  const id = await account(1_000_000);
  const h = await hold(id, 100_000);
  const captured = await captureFromHolds(bed.db, [
    { holdId: h.id, micros: 300, reference: 'call-1' },
    { holdId: h.id, micros: 0, reference: 'call-2' },
    { holdId: h.id, micros: 700, reference: 'call-3' },
  ]);
  assert.deepEqual(captured, [{ holdId: h.id, capturedMicros: 1_000, leftMicros: 99_000 }]);
  assert.deepEqual(await getBalance(bed.db, id), { accountId: id, availableMicros: 900_000, heldMicros: 99_000 });
  const open = await getHold(bed.db, h.id);
  assert.equal(open!.status, 'open');
  assert.equal(open!.amountMicros, 99_000);
  assert.equal(open!.chargedMicros, 1_000);
  const rows = (await ledgerEntries(bed.db, id)).map((e) => [e.kind, e.amountMicros, e.reference]);
  assert.deepEqual(rows.slice(0, 3), [['charge', -700, 'call-3'], ['charge', -300, 'call-1'], ['release', 1_000, h.reference]]);
  assert.equal(await ledgerSum(bed.db, id), 900_000);
  // Releasing what is left gives back only that: the account paid exactly the captures.
  const closed = await releaseHold(bed.db, h.id);
  assert.equal(closed!.availableMicros, 999_000);
  assert.deepEqual(await getBalance(bed.db, id), { accountId: id, availableMicros: 999_000, heldMicros: 0 });
  assert.equal(await ledgerSum(bed.db, id), 999_000);
  const charges = (await ledgerEntries(bed.db, id)).filter((e) => e.kind === 'charge').reduce((s, e) => s + e.amountMicros, 0);
  assert.equal(charges, -1_000);
  const holdsAndReleases = (await ledgerEntries(bed.db, id)).filter((e) => e.kind === 'hold' || e.kind === 'release').reduce((s, e) => s + e.amountMicros, 0);
  assert.equal(holdsAndReleases, 0);
});

test('settling a partly captured hold charges the rest of the work from what is left', async () => {
  const id = await account(50_000);
  const h = await hold(id, 10_000);
  assert.deepEqual(await captureFromHold(bed.db, h.id, 4_000, 'a'), { holdId: h.id, capturedMicros: 4_000, leftMicros: 6_000 });
  const closed = await settleHold(bed.db, h.id, 1_000);
  assert.equal(closed!.chargedMicros, 1_000);
  assert.deepEqual(await getBalance(bed.db, id), { accountId: id, availableMicros: 45_000, heldMicros: 0 });
  assert.equal(await ledgerSum(bed.db, id), 45_000);
});

test('a capture can never take more than the hold has left, nor touch a closed hold; capturing all of it closes the hold', async () => {
  const id = await account(10_000);
  const h = await hold(id, 5_000);
  assert.equal(await captureFromHold(bed.db, h.id, 5_001, 'too much'), null);
  assert.deepEqual(await getBalance(bed.db, id), { accountId: id, availableMicros: 5_000, heldMicros: 5_000 });
  assert.deepEqual(await captureFromHold(bed.db, h.id, 5_000, 'all'), { holdId: h.id, capturedMicros: 5_000, leftMicros: 0 });
  assert.equal((await getHold(bed.db, h.id))!.status, 'settled');
  assert.equal(await captureFromHold(bed.db, h.id, 1, 'after'), null);
  assert.equal(await releaseHold(bed.db, h.id), null);
  assert.deepEqual(await getBalance(bed.db, id), { accountId: id, availableMicros: 5_000, heldMicros: 0 });
  assert.equal(await ledgerSum(bed.db, id), 5_000);

  const released = await hold(id, 1_000);
  await releaseHold(bed.db, released.id);
  assert.equal(await captureFromHold(bed.db, released.id, 10, 'late'), null);
  assert.deepEqual(await getBalance(bed.db, id), { accountId: id, availableMicros: 5_000, heldMicros: 0 });
  await assert.rejects(captureFromHolds(bed.db, [{ holdId: h.id, micros: -1, reference: 'x' }]), (e: BillingError) => e.code === 'invalid_amount');
  await assert.rejects(captureFromHolds(bed.db, [{ holdId: h.id, micros: 1.5, reference: 'x' }]), (e: BillingError) => e.code === 'invalid_amount');
  assert.deepEqual(await captureFromHolds(bed.db, []), []);
});

test('one batch captures from many holds of many accounts; a hold that cannot cover its captures is skipped alone', async () => {
  const a = await account(100_000);
  const b = await account(100_000);
  const ha = await hold(a, 20_000);
  const hb = await hold(b, 2_000);
  const out = await captureFromHolds(bed.db, [
    { holdId: ha.id, micros: 1_500, reference: 'a1' },
    { holdId: hb.id, micros: 1_500, reference: 'b1' },
    { holdId: ha.id, micros: 500, reference: 'a2' },
    { holdId: hb.id, micros: 1_500, reference: 'b2' },
  ]);
  assert.deepEqual(out, [{ holdId: ha.id, capturedMicros: 2_000, leftMicros: 18_000 }]);
  assert.deepEqual(await getBalance(bed.db, b), { accountId: b, availableMicros: 98_000, heldMicros: 2_000 });
  assert.equal((await ledgerEntries(bed.db, b)).filter((e) => e.kind === 'charge').length, 0);
  await releaseHold(bed.db, ha.id);
  await releaseHold(bed.db, hb.id);
  assert.deepEqual(await getBalance(bed.db, a), { accountId: a, availableMicros: 98_000, heldMicros: 0 });
  assert.deepEqual(await getBalance(bed.db, b), { accountId: b, availableMicros: 100_000, heldMicros: 0 });
});

test('captures leave the limit scope unchanged (held and charged both count); the release gives back only what is left', async () => {
  const id = await account(1_000_000);
  const scope = `key:${id}`;
  const h = await hold(id, 30_000, { limit: { scope, maxMicros: 40_000 } });
  await captureFromHold(bed.db, h.id, 12_000, 'c');
  assert.equal(await spentInScope(bed.db, scope), 30_000);
  await assert.rejects(hold(id, 10_001, { limit: { scope, maxMicros: 40_000 } }), (e: BillingError) => e.code === 'limit_reached');
  await releaseHold(bed.db, h.id);
  assert.equal(await spentInScope(bed.db, scope), 12_000);
  assert.deepEqual(await getBalance(bed.db, id), { accountId: id, availableMicros: 988_000, heldMicros: 0 });
});

test('concurrent captures and a release of the same hold never charge more than the hold, and the books balance', async () => {
  const id = await account(100_000);
  const h = await hold(id, 10_000);
  const results = await Promise.all([
    ...Array.from({ length: 30 }, (_, i) => captureFromHold(bed.db, h.id, 1_000, `c${i}`)),
    releaseHold(bed.db, h.id),
  ]);
  const captured = results.slice(0, 30).filter(Boolean).length;
  assert.ok(captured <= 10);
  const balance = await getBalance(bed.db, id);
  assert.deepEqual(balance, { accountId: id, availableMicros: 100_000 - captured * 1_000, heldMicros: 0 });
  assert.equal(await ledgerSum(bed.db, id), balance.availableMicros);
});

test('repair of a dead owner releases what a lease hold has left, never what it captured', async () => {
  const id = await account(100_000);
  const h = await hold(id, 10_000, { owner: 'dead-process', service: 'capture-test' });
  await captureFromHold(bed.db, h.id, 2_500, 'done');
  const out = await repairHolds(bed.db, { service: 'capture-test', resolve: (x) => (x.owner === 'dead-process' ? { release: true } : null) });
  assert.equal(out.released, 1);
  assert.deepEqual(await getBalance(bed.db, id), { accountId: id, availableMicros: 97_500, heldMicros: 0 });
  assert.equal(await ledgerSum(bed.db, id), 97_500);
});
