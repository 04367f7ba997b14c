import assert from 'node:assert/strict';
import { test } from 'node:test';
import { identityMigrations } from '../identity/migrations.ts';
import { platformMigrations } from '../migrations.ts';
import { migrate } from '../storage/migrate.ts';
import { openTestDatabase } from '../testing/harness.ts';
import { getBalance, ledgerEntries, ledgerSum } from './index.ts';

test('prepaid credit kept before the ledger carries over as one top-up per account', async () => {
  const t = await openTestDatabase(identityMigrations);
  try {
    for (const id of ['acc_rich', 'acc_empty', 'acc_none']) {
      await t.db.query('INSERT INTO accounts (id, email) VALUES ($1, $2)', [id, `${id}@example.test`]);
    }
    for (const [account, micros] of [['acc_rich', 12_500_000], ['acc_rich', 2_000_000], ['acc_empty', 1_000_000], ['acc_empty', -1_000_000]] as const) {
      await t.db.query("INSERT INTO credit_ledger (account_id, amount_micros, reason) VALUES ($1, $2, 'operator_grant')", [account, micros]);
    }
    await migrate(t.db, platformMigrations);
    assert.equal((await getBalance(t.db, 'acc_rich')).availableMicros, 14_500_000);
    const rows = await ledgerEntries(t.db, 'acc_rich');
    assert.deepEqual(rows.map((r) => [r.kind, r.amountMicros]), [['topup', 14_500_000]]);
    assert.equal(await ledgerSum(t.db, 'acc_rich'), 14_500_000);
    assert.equal((await getBalance(t.db, 'acc_empty')).availableMicros, 0);
    assert.deepEqual(await ledgerEntries(t.db, 'acc_empty'), []);
    assert.equal((await getBalance(t.db, 'acc_none')).availableMicros, 0);
  } finally {
    await t.close();
  }
});
