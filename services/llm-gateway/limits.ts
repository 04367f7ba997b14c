/**
 * Per-key rpmLimit and tpmLimit over fixed UTC minutes, counted across every process of the
 * cluster. A request is admitted while the key's minute has fewer than rpmLimit requests and
 * fewer than tpmLimit tokens used (tokens are added when a call settles).
 *
 * Requests are counted by the cluster-wide window limiter (platform/limits: exact, from a
 * leased slice in the common case). Tokens are added to the same table when a call settles, off
 * the answer's path. What a process keeps: per key, the minute's token count as last read from
 * the table plus what it settled since; it reads the table again when its copy is older than
 * `tokenRefreshMs` (250 ms). So tokens settled by another process count here within 250 ms of
 * being written; a process's own count immediately.
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
  /** Added by this process since that read. */
  local: number;
  readAt: number;
}

const requestsSubject = (keyId: string) => `llm-gateway:key:${keyId}:requests`;
const tokensSubject = (keyId: string) => `llm-gateway:key:${keyId}:tokens`;

export class MinuteCounters {
  private readonly tokens = new Map<string, TokenCount>();
  private readonly writes = new Set<Promise<unknown>>();

  constructor(
    private readonly db: Database,
    private readonly limiter: WindowLimiter,
    private readonly tokenRefreshMs = 250,
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
    const count = this.tokens.get(keyId);
    if (count && count.minute === minute) count.local += tokens;
    const write = this.db
      .query(
        `INSERT INTO limit_windows AS w (subject, window_ms, window_start, taken, granted) VALUES ($1, $2, $3, $4, 0)
         ON CONFLICT (subject, window_ms, window_start) DO UPDATE SET taken = w.taken + EXCLUDED.taken`,
        [tokensSubject(keyId), MINUTE, minute, tokens],
      )
      .catch(() => {})
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** Waits for the token counts still being written. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  /** Counts of past minutes are of no use. */
  prune(now: Date): void {
    const minute = minuteOf(now);
    for (const [key, c] of this.tokens) if (c.minute < minute) this.tokens.delete(key);
  }

  private async tokensUsed(keyId: string, minute: number): Promise<number> {
    let count = this.tokens.get(keyId);
    if (count && count.minute === minute && performance.now() - count.readAt < this.tokenRefreshMs) return count.read + count.local;
    const [row] = await this.db.query<{ taken: number | string }>('SELECT taken FROM limit_windows WHERE subject = $1 AND window_ms = $2 AND window_start = $3', [
      tokensSubject(keyId),
      MINUTE,
      minute,
    ]);
    if (this.tokens.size >= 100_000) this.prune(new Date(minute));
    // Writes of this process still in flight are in `local` and not yet in the row.
    const pending = count && count.minute === minute ? count.local : 0;
    count = { minute, read: Number(row?.taken ?? 0), local: 0, readAt: performance.now() };
    this.tokens.set(keyId, count);
    return count.read + pending;
  }
}
