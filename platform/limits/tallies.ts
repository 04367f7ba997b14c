/**
 * Counts known only after a request, checked before the next one: the tokens a call used,
 * against a limit of tokens per minute or per day. A request is admitted while the window's
 * count is below the limit (so the request that crosses it is served, and the next is refused);
 * the units are added once the request has settled. Kept in `limit_windows` beside the request
 * windows (windows.ts), one row per subject and window, pruned with them.
 *
 * Neither side costs a request a statement of its own:
 * - units added go to the table in one statement for every subject, `flushMs` (50 ms) after
 *   the first of them, off the answer's path (on the embedded store each statement holds the
 *   event loop for a millisecond or more);
 * - a check reads the table when this process's copy is older than `refreshMs` (250 ms), after
 *   its own batch in flight is written, and adds what this process settled since.
 *
 * What a process keeps, per subject and window: the count as last read, and what it settled
 * and what of that it had written by then. So a process's own units count at once, and units
 * settled by another process count here within `flushMs + refreshMs` (its batch, then this
 * refresh). A batch that started after a read was sent may be in that read as well: the count
 * can then be a batch too high until the next read, never too low. A write that fails loses
 * its units for the other processes (this one still counts them): these are limits on usage
 * that is charged elsewhere (a ledger, a usage report), not the charge itself.
 */
import type { Database } from '../storage/database.ts';

interface Count {
  start: number;
  /** When the window ends (ms): the count is of no use after. */
  end: number;
  /** The table's count when last read. */
  read: number;
  readAt: number;
  /** Settled by this process in the window, written or not. */
  settled: number;
  /** Of `settled`, written to the table (committed). */
  written: number;
  /** `written` when the last read was sent: the part of `settled` that read already holds. */
  writtenAtRead: number;
}

interface Unsent {
  subject: string;
  ms: number;
  start: number;
  n: number;
}

export interface WindowTallyOptions {
  refreshMs?: number;
  flushMs?: number;
}

export class WindowTally {
  private readonly counts = new Map<string, Count>();
  /** Units settled and not yet sent to the table, per subject and window. */
  private unsent = new Map<string, Unsent>();
  private timer: NodeJS.Timeout | null = null;
  /** The batch being written (one at a time, in order); never rejects. */
  private writing: Promise<void> = Promise.resolve();
  private readonly refreshMs: number;
  private readonly flushMs: number;

  constructor(
    private readonly db: Database,
    options: WindowTallyOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? 250;
    this.flushMs = options.flushMs ?? 50;
  }

  /** The units counted in the window of `ms` that holds `now`, across the cluster as far as this process knows. */
  async used(subject: string, ms: number, now: Date): Promise<number> {
    const count = this.countOf(subject, ms, windowStart(now, ms));
    if (performance.now() - count.readAt >= this.refreshMs) {
      // The batch in flight first: once written it is in the read, and counted once.
      await this.writing;
      const writtenAtRead = count.written;
      const [row] = await this.db.query<{ taken: number | string }>('SELECT taken FROM limit_windows WHERE subject = $1 AND window_ms = $2 AND window_start = $3', [
        subject,
        ms,
        count.start,
      ]);
      count.read = Number(row?.taken ?? 0);
      count.writtenAtRead = writtenAtRead;
      count.readAt = performance.now();
    }
    // The table's count, plus what this process settled that the read did not hold yet.
    return count.read + count.settled - count.writtenAtRead;
  }

  /** Adds settled units to the window that starts at `start` (nothing once that window is over). */
  add(subject: string, ms: number, start: number, n: number): void {
    if (n <= 0 || start + ms <= Date.now()) return;
    this.countOf(subject, ms, start).settled += n;
    const id = `${ms}\u0000${start}\u0000${subject}`;
    const entry = this.unsent.get(id);
    if (entry) entry.n += n;
    else this.unsent.set(id, { subject, ms, start, n });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes the units settled so far; resolves once they are in the table (or their write failed). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** Counts of windows that have ended are of no use. */
  prune(now: Date): void {
    const t = now.getTime();
    for (const [key, c] of this.counts) if (c.end <= t) this.counts.delete(key);
  }

  private countOf(subject: string, ms: number, start: number): Count {
    const key = `${ms}\u0000${subject}`;
    let count = this.counts.get(key);
    if (!count || count.start !== start) {
      if (!count && this.counts.size >= 100_000) this.prune(new Date());
      // Never read: the table's count is unknown, so the first check reads it.
      count = { start, end: start + ms, read: 0, readAt: -Infinity, settled: 0, written: 0, writtenAtRead: 0 };
      this.counts.set(key, count);
    }
    return count;
  }

  private async write(): Promise<void> {
    if (this.unsent.size === 0) return;
    // In key order: two processes writing the same rows lock them in the same order.
    const batch = [...this.unsent.values()].sort(
      (a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : a.ms - b.ms || a.start - b.start),
    );
    this.unsent = new Map();
    try {
      await this.db.query(
        `INSERT INTO limit_windows AS w (subject, window_ms, window_start, taken, granted)
         SELECT subject, window_ms, window_start, taken, 0
           FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::bigint[]) AS t(subject, window_ms, window_start, taken)
         ON CONFLICT (subject, window_ms, window_start) DO UPDATE SET taken = w.taken + EXCLUDED.taken`,
        [batch.map((b) => b.subject), batch.map((b) => b.ms), batch.map((b) => b.start), batch.map((b) => b.n)],
      );
    } catch {
      return;
    }
    for (const b of batch) {
      const count = this.counts.get(`${b.ms}\u0000${b.subject}`);
      if (count && count.start === b.start) count.written += b.n;
    }
  }
}

/** The start (ms since the Unix epoch) of the window of `ms` that holds `now`. */
export function windowStart(now: Date, ms: number): number {
  return Math.floor(now.getTime() / ms) * ms;
}
