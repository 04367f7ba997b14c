/**
 * Counts written in batches. A count that is only shown (a month's API calls, a tenant's
 * requests of a day), not enforced, need not cost every request a statement: requests add to
 * memory, and one statement writes the sums of every counter at most once a second, when the
 * process stops, and before this process reads a counter back (`flush`). What that trades:
 * another process of a cluster reads counts up to a second old, and a process killed with
 * SIGKILL loses its last second of counts. Limits are never counted here: they are
 * platform/limits' windows and tallies, exact across processes.
 */
import type { Database } from './database.ts';

export interface CounterBatchOptions<K> {
  /** A counter's identity: counts of equal ids are summed before they are written. */
  idOf(key: K): string;
  /**
   * Adds each row's amounts to what the store holds, in one statement (rows come in id order,
   * so two processes writing the same counters lock their rows in the same order).
   */
  write(db: Database, rows: ReadonlyArray<{ key: K; amounts: number[] }>): Promise<void>;
  /** Rows per statement, under the protocol's 65,535 parameters. */
  rowsPerStatement: number;
  /** How long counts wait in memory before they are written (1 s). */
  flushAfterMs?: number;
}

export class CounterBatch<K> {
  private pending = new Map<string, { key: K; amounts: number[] }>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly db: Database,
    private readonly options: CounterBatchOptions<K>,
  ) {}

  add(key: K, amounts: readonly number[]): void {
    const id = this.options.idOf(key);
    const entry = this.pending.get(id);
    if (entry) for (let i = 0; i < amounts.length; i++) entry.amounts[i] = (entry.amounts[i] ?? 0) + amounts[i]!;
    else this.pending.set(id, { key, amounts: [...amounts] });
    // After close (a request that ends while the process stops) a count is written at once.
    if (this.closed) void this.flush().catch(() => {});
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush().catch(() => {}), this.options.flushAfterMs ?? 1_000);
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
    const batch = [...this.pending].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);
    this.pending = new Map();
    const size = this.options.rowsPerStatement;
    for (let i = 0; i < batch.length; i += size) {
      const rows = batch.slice(i, i + size);
      try {
        await this.options.write(this.db, rows);
      } catch (err) {
        if ((err as { code?: string }).code === '23503') {
          // A row whose owner was deleted since it was counted (a foreign key refused it): write
          // the others one by one and drop the deleted owner's counts with it.
          for (const entry of rows) await this.options.write(this.db, [entry]).catch(() => {});
          continue;
        }
        // What was not written is kept for the next write rather than lost.
        if (!this.closed) for (const e of batch.slice(i)) this.add(e.key, e.amounts);
        throw err;
      }
    }
  }
}
