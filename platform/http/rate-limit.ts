/**
 * Per-key request rate limits (token buckets), enforced in each process. With several
 * processes behind a balancer each enforces the plan's rate on the traffic it sees.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Takes one token from `key`'s bucket of `perSecond` capacity; false when it is empty. */
  take(key: string, perSecond: number, now = performance.now()): boolean {
    if (!Number.isFinite(perSecond)) return true;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: perSecond, at: now };
      this.buckets.set(key, bucket);
      if (this.buckets.size > 100_000) this.buckets.delete(this.buckets.keys().next().value!);
    }
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
