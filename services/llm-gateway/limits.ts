/**
 * Per-key rpmLimit and tpmLimit over fixed UTC minutes, counted across every process of the
 * cluster. A request is admitted while the key's minute has fewer than rpmLimit requests and
 * fewer than tpmLimit tokens used (tokens are added when a call settles).
 *
 * Requests are counted by the cluster-wide window limiter (platform/limits/windows.ts: exact,
 * from a leased slice in the common case); tokens by its tally of units settled after the fact
 * (platform/limits/tallies.ts: written in batches every 50 ms, read back every 250 ms, a
 * process's own tokens counting at once and another's within 300 ms).
 */
import { MINUTE, type WindowLimiter } from '../../platform/limits/windows.ts';
import { WindowTally, windowStart, type WindowTallyOptions } from '../../platform/limits/tallies.ts';
import type { Database } from '../../platform/storage/database.ts';
import { gatewayError } from './errors.ts';
import type { KeyLimits } from './keys.ts';

export function minuteOf(now: Date): number {
  return windowStart(now, MINUTE);
}

const requestsSubject = (keyId: string) => `llm-gateway:key:${keyId}:requests`;
const tokensSubject = (keyId: string) => `llm-gateway:key:${keyId}:tokens`;

export class MinuteCounters {
  private readonly tally: WindowTally;

  constructor(
    db: Database,
    private readonly limiter: WindowLimiter,
    tally: WindowTallyOptions = {},
  ) {
    this.tally = new WindowTally(db, tally);
  }

  /**
   * Counts one request in the key's minute and returns that minute, or throws the 429 naming
   * the limit (no Retry-After: spec). Keys without rate limits are not counted (null).
   */
  async admit(keyId: string, limits: KeyLimits, now: Date, requestId: string): Promise<number | null> {
    if (limits.rpmLimit === null && limits.tpmLimit === null) return null;
    const minute = minuteOf(now);
    if (limits.tpmLimit !== null && (await this.tally.used(tokensSubject(keyId), MINUTE, now)) >= limits.tpmLimit) {
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
    this.tally.add(tokensSubject(keyId), MINUTE, minute, tokens);
  }

  /** Writes the tokens settled so far; resolves once they are in the table (or their write failed). */
  flush(): Promise<void> {
    return this.tally.flush();
  }

  /** Counts of past minutes are of no use. */
  prune(now: Date): void {
    this.tally.prune(now);
  }
}
