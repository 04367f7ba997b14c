/**
 * Usage counts written in batches. A count that is only shown (a month's API calls), not
 * enforced, need not cost every request a statement: requests add to memory, and one statement
 * writes the sums of every counter at most once a second, when the process stops, and before
 * this process reads a counter back (`flush`). What that trades: another process of a cluster
 * reads counts up to a second old, and a process killed with SIGKILL loses its last second of
 * counts. Limits are never counted here: they are platform/limits' windows, exact across
 * processes.
 */
import type { Database } from '../storage/database.ts';

export interface CounterKey {
  accountId: string;
  service: string;
  counter: string;
  period: string;
}

/** How long counts wait in memory before they are written. */
const FLUSH_AFTER_MS = 1_000;
/** 5 parameters a row, well under PostgreSQL's 65,535 parameters per statement. */
const ROWS_PER_STATEMENT = 1_000;

export class UsageBatch {
  private pending = new Map<string, { key: CounterKey; n: number }>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly db: Database) {}

  add(key: CounterKey, n = 1): void {
    const id = `${key.accountId}\0${key.service}\0${key.counter}\0${key.period}`;
    const entry = this.pending.get(id);
    if (entry) entry.n += n;
    else this.pending.set(id, { key, n });
    if (!this.timer && !this.closed) {
      this.timer = setTimeout(() => void this.flush().catch(() => {}), FLUSH_AFTER_MS);
      this.timer.unref();
    }
  }

  /** Writes every count added so far; resolves once they are in the store. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // One write at a time, in order: a flush waits for the one before it.
    this.writing = this.writing.catch(() => {}).then(() => this.write());
    return this.writing;
  }

  /** Writes what is left; later counts are written at once (the process is stopping). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    // In key order: two processes writing the same counters lock their rows in the same order
    // (no deadlock); in statements of at most ROWS_PER_STATEMENT rows (the protocol's parameter limit).
    const batch = [...this.pending].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);
    this.pending = new Map();
    for (let i = 0; i < batch.length; i += ROWS_PER_STATEMENT) {
      const rows = batch.slice(i, i + ROWS_PER_STATEMENT);
      try {
        await this.insert(rows);
      } catch (err) {
        if ((err as { code?: string }).code === '23503') {
          // An account deleted since its requests were counted: write the others one by one and
          // drop the deleted account's counts with it (they would refer to no account).
          for (const entry of rows) await this.insert([entry]).catch(() => {});
          continue;
        }
        // What was not written is kept for the next write rather than lost.
        if (!this.closed) for (const e of batch.slice(i)) this.add(e.key, e.n);
        throw err;
      }
    }
  }

  private async insert(batch: Array<{ key: CounterKey; n: number }>): Promise<void> {
    const params: unknown[] = [];
    const rows = batch.map(({ key, n }, i) => {
      params.push(key.accountId, key.service, key.counter, key.period, n);
      const b = i * 5;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}::bigint)`;
    });
    await this.db.query(
      `INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ${rows.join(', ')}
       ON CONFLICT (account_id, service, counter, period) DO UPDATE SET value = usage_counters.value + EXCLUDED.value`,
      params,
    );
  }
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
