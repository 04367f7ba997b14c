/**
 * Per-key rpmLimit and tpmLimit over fixed UTC minutes, counted in this process's memory so
 * that no call waits on the database for them. A request is admitted while the key's minute
 * has fewer than rpmLimit requests and fewer than tpmLimit tokens used (tokens are added when
 * a call settles). The check and the count are one synchronous step, so concurrent requests of
 * one process cannot pass a limit together. With N processes behind a balancer each enforces
 * the limits on the share it sees (like the other services' per-key rate limits, README
 * "Scaling out"); the money limits (balance, spendLimit) are on the ledger and hold across
 * processes.
 */
import { gatewayError } from './errors.ts';
import type { KeyLimits } from './keys.ts';

export function minuteOf(now: Date): number {
  return Math.floor(now.getTime() / 60_000) * 60_000;
}

interface Window {
  minute: number;
  requests: number;
  tokens: number;
}

export class MinuteCounters {
  private readonly windows = new Map<string, Window>();

  /**
   * Counts one request in the key's minute and returns that minute, or throws the 429 naming
   * the limit (no Retry-After: spec). Keys without rate limits are not counted (null).
   */
  admit(keyId: string, limits: KeyLimits, now: Date, requestId: string): number | null {
    if (limits.rpmLimit === null && limits.tpmLimit === null) return null;
    const minute = minuteOf(now);
    let w = this.windows.get(keyId);
    if (!w || w.minute !== minute) {
      if (this.windows.size >= 100_000) this.prune(now);
      w = { minute, requests: 0, tokens: 0 };
      this.windows.set(keyId, w);
    }
    const rpm = limits.rpmLimit ?? Number.MAX_SAFE_INTEGER;
    const tpm = limits.tpmLimit ?? Number.MAX_SAFE_INTEGER;
    if (w.requests < rpm && w.tokens < tpm) {
      w.requests++;
      return minute;
    }
    if (limits.tpmLimit !== null && w.tokens >= limits.tpmLimit) {
      throw gatewayError(429, 'rate_limit_error', `Rate limit reached: this API key's tpmLimit is ${limits.tpmLimit} tokens per minute`, requestId);
    }
    throw gatewayError(429, 'rate_limit_error', `Rate limit reached: this API key's rpmLimit is ${limits.rpmLimit} requests per minute`, requestId);
  }

  /** Adds a settled call's tokens to the minute it was admitted in (nothing once that minute is over). */
  addTokens(keyId: string, minute: number, tokens: number): void {
    const w = this.windows.get(keyId);
    if (w && w.minute === minute && tokens > 0) w.tokens += tokens;
  }

  /** Windows of past minutes are of no use. */
  prune(now: Date): void {
    const minute = minuteOf(now);
    for (const [key, w] of this.windows) if (w.minute < minute) this.windows.delete(key);
  }
}
