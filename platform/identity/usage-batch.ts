/**
 * The platform's usage counters (usage_counters: a month's API calls of an account and
 * service), written in batches (platform/storage/counter-batch.ts): shown, never enforced.
 */
import { CounterBatch } from '../storage/counter-batch.ts';
import type { Database } from '../storage/database.ts';

export interface CounterKey {
  accountId: string;
  service: string;
  counter: string;
  period: string;
}

/** 5 parameters a row, well under PostgreSQL's 65,535 parameters per statement. */
const ROWS_PER_STATEMENT = 1_000;

export class UsageBatch {
  private readonly batch: CounterBatch<CounterKey>;

  constructor(db: Database) {
    this.batch = new CounterBatch(db, {
      idOf: (key) => `${key.accountId}\0${key.service}\0${key.counter}\0${key.period}`,
      write: insertCounters,
      rowsPerStatement: ROWS_PER_STATEMENT,
    });
  }

  add(key: CounterKey, n = 1): void {
    this.batch.add(key, [n]);
  }

  /** Writes every count added so far; resolves once they are in the store. */
  flush(): Promise<void> {
    return this.batch.flush();
  }

  /** Writes what is left; later counts are written at once (the process is stopping). */
  close(): Promise<void> {
    return this.batch.close();
  }
}

async function insertCounters(db: Database, batch: ReadonlyArray<{ key: CounterKey; amounts: number[] }>): Promise<void> {
  const params: unknown[] = [];
  const rows = batch.map(({ key, amounts }, i) => {
    params.push(key.accountId, key.service, key.counter, key.period, amounts[0]);
    const b = i * 5;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}::bigint)`;
  });
  await db.query(
    `INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ${rows.join(', ')}
     ON CONFLICT (account_id, service, counter, period) DO UPDATE SET value = usage_counters.value + EXCLUDED.value`,
    params,
  );
}

const byDatabase = new WeakMap<Database, UsageBatch>();

/** The process's one batch of a database. */
export function usageBatchFor(db: Database): UsageBatch {
  let batch = byDatabase.get(db);
  if (!batch) {
    batch = new UsageBatch(db);
    byDatabase.set(db, batch);
  }
  return batch;
}
