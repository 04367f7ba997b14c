/** Test helpers for the ledger: a migrated database per test file, funded accounts and holds. */
import { after, before } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { platformMigrations } from '../migrations.ts';
import type { Sql } from '../storage/database.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import { placeHold, topUp } from './index.ts';

export interface BillingTestbed {
  readonly db: Sql;
  /** A new account holding `micros` of credit. */
  account(micros?: number): Promise<string>;
  /** A hold of `micros` on the account for one minute, by a test process. */
  hold(accountId: string, micros: number, extra?: Partial<Parameters<typeof placeHold>[1]>): ReturnType<typeof placeHold>;
}

/** Opens the database before the file's tests and closes it after them. */
export function billingTestbed(prefix: string): BillingTestbed {
  let t: TestDatabase | undefined;
  let n = 0;
  before(async () => {
    t = await openTestDatabase(platformMigrations);
  });
  after(() => t?.close());
  const bed: BillingTestbed = {
    get db() {
      if (!t) throw new Error('billing testbed used before its database opened');
      return t.db;
    },
    async account(micros = 0) {
      const { id } = await createAccount(bed.db, { email: `${prefix}${++n}-${Date.now()}@example.test` });
      if (micros > 0) await topUp(bed.db, { accountId: id, micros });
      return id;
    },
    hold(accountId, micros, extra = {}) {
      return placeHold(bed.db, {
        accountId,
        service: 'test',
        reference: `${prefix}-${Math.random()}`,
        micros,
        owner: 'test-process',
        expiresAt: new Date(Date.now() + 60_000),
        ...extra,
      });
    },
  };
  return bed;
}
