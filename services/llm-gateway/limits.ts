/**
 * Per-key rpmLimit and tpmLimit over fixed UTC minutes, counted across every process of the
 * cluster. A request is admitted while the key's minute has fewer than rpmLimit requests and
 * fewer than tpmLimit tokens used (tokens are added when a call settles).
 *
 * Requests are counted by the cluster-wide window limiter (platform/limits: exact, from a
 * leased slice in the common case). Tokens are added to the same table when a call settles, off
 * the answer's path and in batches: the tokens settled in `tokenFlushMs` (50 ms) go out in one
 * statement for every key, not one statement per call (on the embedded store each statement
 * holds the event loop for a millisecond or more). What a process keeps, per key: the minute's
 * count as last read from the table, and what it settled and what of that it had written by
 * then; it reads the table again when its copy is older than `tokenRefreshMs` (250 ms), after
 * its own batch in flight is written. So a process's own tokens count at once, and tokens
 * settled by another process count here within 300 ms (its batch, then this refresh). A batch
 * that started after a read was sent may be in that read as well: the count can then be a
 * batch too high until the next read, never too low.
 */
import { MINUTE, type WindowLimiter } from '../../platform/limits/windows.ts';
import type { Database } from '../../platform/storage/database.ts';
import { gatewayError } from './errors.ts';
import type { KeyLimits } from './keys.ts';

export function minuteOf(now: Date): number {
  return Math.floor(now.getTime() / 60_000) * 60_000;
}

interface TokenCount {
  minute: number;
  /** The table's count when last read. */
  read: number;
  readAt: number;
  /** Settled by this process in `minute`, written or not. */
  settled: number;
  /** Of `settled`, written to the table (committed). */
  written: number;
  /** `written` when the last read was sent: the part of `settled` that read already holds. */
  writtenAtRead: number;
}

const requestsSubject = (keyId: string) => `llm-gateway:key:${keyId}:requests`;
const tokensSubject = (keyId: string) => `llm-gateway:key:${keyId}:tokens`;

export class MinuteCounters {
  private readonly tokens = new Map<string, TokenCount>();
  /** Tokens settled and not yet sent to the table, per key and minute. */
  private unsent = new Map<string, { keyId: string; minute: number; tokens: number }>();
  private timer: NodeJS.Timeout | null = null;
  /** The batch being written (one at a time, in order); never rejects. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly limiter: WindowLimiter,
    private readonly tokenRefreshMs = 250,
    private readonly tokenFlushMs = 50,
  ) {}

  /**
   * Counts one request in the key's minute and returns that minute, or throws the 429 naming
   * the limit (no Retry-After: spec). Keys without rate limits are not counted (null).
   */
  async admit(keyId: string, limits: KeyLimits, now: Date, requestId: string): Promise<number | null> {
    if (limits.rpmLimit === null && limits.tpmLimit === null) return null;
    const minute = minuteOf(now);
    if (limits.tpmLimit !== null && (await this.tokensUsed(keyId, minute)) >= limits.tpmLimit) {
      throw gatewayError(429, 'rate_limit_error', `Rate limit reached: this API key's tpmLimit is ${limits.tpmLimit} tokens per minute`, requestId);
    }
    if (limits.rpmLimit !== null) {
      const taken = await this.limiter.take(requestsSubject(keyId), [{ name: 'minute', limit: limits.rpmLimit, ms: MINUTE }], now);
      if (!taken.ok) {
        throw gatewayError(429, 'rate_limit_error', `Rate limit reached: this API key's rpmLimit is ${limits.rpmLimit} requests per minute`, requestId);
      }
    }
    return minute;
  }

  /** Adds a settled call's tokens to the minute it was admitted in (nothing once that minute is over). */
  addTokens(keyId: string, minute: number, tokens: number): void {
    if (tokens <= 0 || minute + MINUTE <= Date.now()) return;
    this.countOf(keyId, minute).settled += tokens;
    const id = `${keyId}\u0000${minute}`;
    const entry = this.unsent.get(id);
    if (entry) entry.tokens += tokens;
    else this.unsent.set(id, { keyId, minute, tokens });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.tokenFlushMs);
      this.timer.unref();
    }
  }

  /** Writes the tokens settled so far; resolves once they are in the table (or their write failed). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** Counts of past minutes are of no use. */
  prune(now: Date): void {
    const minute = minuteOf(now);
    for (const [key, c] of this.tokens) if (c.minute < minute) this.tokens.delete(key);
  }

  private countOf(keyId: string, minute: number): TokenCount {
    let count = this.tokens.get(keyId);
    if (!count || count.minute !== minute) {
      if (!count && this.tokens.size >= 100_000) this.prune(new Date(minute));
      // Never read: the table's count is unknown, so the first admission reads it.
      count = { minute, read: 0, readAt: -Infinity, settled: 0, written: 0, writtenAtRead: 0 };
      this.tokens.set(keyId, count);
    }
    return count;
  }

  private async write(): Promise<void> {
    if (this.unsent.size === 0) return;
    // In subject order: two processes writing the same rows lock them in the same order.
    const batch = [...this.unsent.values()].sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : a.minute - b.minute));
    this.unsent = new Map();
    try {
      await this.db.query(
        `INSERT INTO limit_windows AS w (subject, window_ms, window_start, taken, granted)
         SELECT subject, $2, window_start, taken, 0 FROM unnest($1::text[], $3::bigint[], $4::bigint[]) AS t(subject, window_start, taken)
         ON CONFLICT (subject, window_ms, window_start) DO UPDATE SET taken = w.taken + EXCLUDED.taken`,
        [batch.map((b) => tokensSubject(b.keyId)), MINUTE, batch.map((b) => b.minute), batch.map((b) => b.tokens)],
      );
    } catch {
      // Counts only (the calls are charged on the ledger): a failed write loses them, as the
      // per-call write did; this process still counts them itself.
      return;
    }
    for (const b of batch) {
      const count = this.tokens.get(b.keyId);
      if (count && count.minute === b.minute) count.written += b.tokens;
    }
  }

  private async tokensUsed(keyId: string, minute: number): Promise<number> {
    const count = this.countOf(keyId, minute);
    if (performance.now() - count.readAt >= this.tokenRefreshMs) {
      // The batch in flight first: once written it is in the read, and counted once.
      await this.writing;
      const writtenAtRead = count.written;
      const [row] = await this.db.query<{ taken: number | string }>('SELECT taken FROM limit_windows WHERE subject = $1 AND window_ms = $2 AND window_start = $3', [
        tokensSubject(keyId),
        MINUTE,
        minute,
      ]);
      count.read = Number(row?.taken ?? 0);
      count.writtenAtRead = writtenAtRead;
      count.readAt = performance.now();
    }
    // The table's count, plus what this process settled that the read did not hold yet.
    return count.read + count.settled - count.writtenAtRead;
  }
}
